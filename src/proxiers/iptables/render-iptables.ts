/**
 * `renderIptables(cluster, { proxyConfig?, node })`: kube-proxy's iptables mode on one node.
 * Per family: `restore` (the exact iptables-restore input kube-proxy writes), `save` (what
 * iptables-save prints once it is loaded after kube-proxy's built-in-chain jumps, through the
 * canonical formatter) and `ruleSet` (the node's tables, for the tracer). The top-level fields
 * are the node's first family; `families` has one entry per family (dual stack: two proxiers).
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

export function renderIptables(cluster: Cluster, opts: IptablesRenderOptions): IptablesRender {
  const families = renderIptablesFamilies(cluster, opts).map((f): IptablesFamilyRender => {
    const ruleSet = parseIptables(f.nodeState, {
      file: `<kube-proxy ${f.family}>`,
      family: f.family,
    });
    return { ...f, ruleSet, save: formatIptablesSave(ruleSet) };
  });
  const first = families[0];
  if (first === undefined) throw new Error("a node has at least one IP family");
  return { restore: first.restore, save: first.save, ruleSet: first.ruleSet, families };
}
