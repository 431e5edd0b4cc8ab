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
import type { RuleSetBuilder, SpilledText } from "../../netfilter/build/rule-set-builder.js";
import type { RuleSet } from "../../netfilter/model.js";
import { familyPlanSource, planFamily, type FamilyPlan } from "../common/plan.js";
import { proxierSettings, type ProxierOptions } from "../common/proxier-settings.js";
import { nodeStateRuleSet } from "./node-state.js";
import { writeRuleSet, writeRuleSetFrom, type RestoreOptions } from "./render-restore.js";

export interface IptablesRenderOptions extends ProxierOptions, RestoreOptions {
  /**
   * The caller reads the restore text only (`render iptables`): the rules are written as text
   * alone, without the clauses their typed form is made from; a rule set read after all is
   * written again, with them.
   */
  readonly restoreOnly?: boolean;
  /**
   * With `restoreOnly`: where a large table's restore lines are kept until printed, instead of
   * fresh memory (the CLI: a temporary file). `writeRestore` then hands out pieces that are
   * written over after use.
   */
  readonly restoreSpill?: () => SpilledText;
}

export interface IptablesFamilyRestore {
  readonly family: IPFamily;
  readonly plan: FamilyPlan;
  /** kube-proxy's iptables-restore input, as data (built-in chains empty). */
  readonly payload: RuleSet;
  /** kube-proxy's iptables-restore input. */
  readonly restore: string;
  /**
   * `restore` as UTF-8 bytes, handed to `write` in pieces as they are (never made one string:
   * the CLI writes them to stdout). Use each piece before the call returns.
   */
  writeRestore(write: (bytes: Uint8Array) => void): void;
  /** The node's filter and nat tables after the sync (built-in chains and jumps included). */
  readonly ruleSet: RuleSet;
  /** `ruleSet` in restore form (loadable into an empty namespace). */
  readonly nodeState: string;
}

class FamilyRestore implements IptablesFamilyRestore {
  #plan: FamilyPlan | undefined;
  #restore: string | undefined;
  #typed: RuleSetBuilder | undefined;
  #ruleSet: RuleSet | undefined;
  #nodeState: string | undefined;

  constructor(
    readonly family: IPFamily,
    /** The plan, or how to make it when first read (the text-only path keeps none). */
    plan: FamilyPlan | (() => FamilyPlan),
    private readonly opts: RestoreOptions,
    /** What the proxier wrote (text only when the caller said it reads no more). */
    private readonly written: RuleSetBuilder,
  ) {
    if (typeof plan === "function") this.#makePlan = plan;
    else this.#plan = plan;
    if (written.typed) this.#typed = written;
  }

  #makePlan: (() => FamilyPlan) | undefined;

  get plan(): FamilyPlan {
    this.#plan ??= (this.#makePlan as () => FamilyPlan)();
    return this.#plan;
  }

  /** Made from what the proxier wrote when first read (the restore text needs no rule objects). */
  get payload(): RuleSet {
    this.#typed ??= writeRuleSet(this.plan, this.opts);
    return this.#typed.build();
  }

  get restore(): string {
    this.#restore ??= this.written.restore();
    return this.#restore;
  }

  writeRestore(write: (bytes: Uint8Array) => void): void {
    this.written.writeRestore(write);
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
    const settings = proxierSettings(cluster, family, opts);
    if (opts.restoreOnly === true) {
      // Text only: each service port's rules are written as it is planned (no plan of the
      // whole cluster is kept); the plan is made again if it is read.
      return new FamilyRestore(
        family,
        () => planFamily(cluster, settings),
        opts,
        writeRuleSetFrom(familyPlanSource(cluster, settings), opts, false, opts.restoreSpill),
      );
    }
    const plan = planFamily(cluster, settings);
    return new FamilyRestore(family, plan, opts, writeRuleSet(plan, opts));
  });
}
