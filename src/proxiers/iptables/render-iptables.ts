/**
 * `renderIptables(cluster, { proxyConfig?, node })`: kube-proxy's iptables mode on one node.
 * Per family: `restore` (the exact iptables-restore input kube-proxy writes), `save` (what
 * iptables-save prints once it is loaded after kube-proxy's built-in-chain jumps, through the
 * canonical formatter) and `ruleSet` (the node's tables, for the tracer). The top-level fields
 * are the node's first family; `families` has one entry per family (dual stack: two proxiers).
 *
 * `ruleSet` and `save` are computed when first read: a caller that wants the restore text
 * (`render iptables`, the default format) does not pay for them.
 */
import type { Cluster } from "../../model/cluster.js";
import { formatIptablesSave } from "../../netfilter/format/index.js";
import type { RuleSet } from "../../netfilter/model.js";
import { parseIptables } from "../../netfilter/parse/iptables.js";
import {
  renderIptablesFamilies,
  type IptablesFamilyRestore,
  type IptablesRenderOptions,
} from "./render.js";

export interface IptablesFamilyRender extends IptablesFamilyRestore {
  readonly save: string;
  /** The node's filter and nat tables after the sync (built-in chains included). */
  readonly ruleSet: RuleSet;
}

export interface IptablesRender {
  readonly restore: string;
  readonly save: string;
  readonly ruleSet: RuleSet;
  readonly families: readonly IptablesFamilyRender[];
}

class FamilyRender implements IptablesFamilyRender {
  #ruleSet: RuleSet | undefined;
  #save: string | undefined;
  readonly family: IptablesFamilyRestore["family"];
  readonly plan: IptablesFamilyRestore["plan"];
  readonly restore: string;
  readonly nodeState: string;

  constructor(f: IptablesFamilyRestore) {
    this.family = f.family;
    this.plan = f.plan;
    this.restore = f.restore;
    this.nodeState = f.nodeState;
  }

  get ruleSet(): RuleSet {
    this.#ruleSet ??= parseIptables(this.nodeState, {
      file: `<kube-proxy ${this.family}>`,
      family: this.family,
    });
    return this.#ruleSet;
  }

  get save(): string {
    this.#save ??= formatIptablesSave(this.ruleSet);
    return this.#save;
  }
}

export function renderIptables(cluster: Cluster, opts: IptablesRenderOptions): IptablesRender {
  const families = renderIptablesFamilies(cluster, opts).map((f) => new FamilyRender(f));
  const first = families[0];
  if (first === undefined) throw new Error("a node has at least one IP family");
  return {
    restore: first.restore,
    get save() {
      return first.save;
    },
    get ruleSet() {
      return first.ruleSet;
    },
    families,
  };
}
