/**
 * kube-proxy's iptables mode for one node: one proxier per IP family of the node (spec §1.1).
 *
 * `renderIptablesFamilies(cluster, { proxyConfig?, node })` returns, per family, the plan,
 * `payload` (kube-proxy's restore input as a rule set, built as data), `restore` (its text,
 * exactly the iptables-restore input kube-proxy writes) and `nodeState` (the node's filter and
 * nat tables after a first full sync, restore form, built-in jumps included). Texts are
 * formatted when first read.
 */
import type { Cluster } from "../../model/cluster.js";
import type { IPFamily } from "../../net/index.js";
import { formatIptablesRestore } from "../../netfilter/format/restore.js";
import type { RuleSetBuilder } from "../../netfilter/build/rule-set-builder.js";
import type { RuleSet } from "../../netfilter/model.js";
import { planFamily, type FamilyPlan } from "../common/plan.js";
import { proxierSettings, type ProxierOptions } from "../common/proxier-settings.js";
import { nodeStateRuleSet } from "./node-state.js";
import { writeRuleSet, type RestoreOptions } from "./render-restore.js";

export interface IptablesRenderOptions extends ProxierOptions, RestoreOptions {}

export interface IptablesFamilyRestore {
  readonly family: IPFamily;
  readonly plan: FamilyPlan;
  /** kube-proxy's iptables-restore input, as data (built-in chains empty). */
  readonly payload: RuleSet;
  /** kube-proxy's iptables-restore input. */
  readonly restore: string;
  /** The node's filter and nat tables after the sync (built-in chains and jumps included). */
  readonly ruleSet: RuleSet;
  /** `ruleSet` in restore form (loadable into an empty namespace). */
  readonly nodeState: string;
}

class FamilyRestore implements IptablesFamilyRestore {
  #restore: string | undefined;
  #ruleSet: RuleSet | undefined;
  #nodeState: string | undefined;

  constructor(
    readonly family: IPFamily,
    readonly plan: FamilyPlan,
    private readonly written: RuleSetBuilder,
  ) {}

  /** Made from what the proxier wrote when first read (the restore text needs no rule objects). */
  get payload(): RuleSet {
    return this.written.build();
  }

  get restore(): string {
    this.#restore ??= this.written.restore();
    return this.#restore;
  }

  get ruleSet(): RuleSet {
    this.#ruleSet ??= nodeStateRuleSet(this.payload);
    return this.#ruleSet;
  }

  get nodeState(): string {
    this.#nodeState ??= formatIptablesRestore(this.ruleSet);
    return this.#nodeState;
  }
}

export function renderIptablesFamilies(
  cluster: Cluster,
  opts: IptablesRenderOptions,
): IptablesFamilyRestore[] {
  const families: readonly IPFamily[] =
    opts.node.ipFamilies.length > 0 ? opts.node.ipFamilies : ["IPv4"];
  return families.map((family) => {
    const plan = planFamily(cluster, proxierSettings(cluster, family, opts));
    return new FamilyRestore(family, plan, writeRuleSet(plan, opts));
  });
}
