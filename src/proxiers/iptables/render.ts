/**
 * kube-proxy's iptables mode for one node: one proxier per IP family of the node (spec §1.1).
 *
 * `renderIptables(cluster, { proxyConfig?, node })` returns, per family, `restore` (exactly
 * the iptables-restore input kube-proxy writes) and `nodeState` (the node's filter and nat
 * tables after a first full sync, restore form, built-in jumps included). The top-level fields
 * are those of the node's first family; `families` has all of them.
 */
import type { Cluster } from "../../model/cluster.js";
import type { IPFamily } from "../../net/index.js";
import { planFamily, type FamilyPlan } from "../common/plan.js";
import { proxierSettings, type ProxierOptions } from "../common/proxier-settings.js";
import { nodeStateRestoreText } from "./node-state.js";
import { renderRestoreSections, type RestoreOptions } from "./render-restore.js";

export interface IptablesRenderOptions extends ProxierOptions, RestoreOptions {}

export interface IptablesFamilyRestore {
  readonly family: IPFamily;
  readonly plan: FamilyPlan;
  /** kube-proxy's iptables-restore input. */
  readonly restore: string;
  /** The node's tables after the sync (restore form, with built-in chains and jumps). */
  readonly nodeState: string;
}

export function renderIptablesFamilies(
  cluster: Cluster,
  opts: IptablesRenderOptions,
): IptablesFamilyRestore[] {
  const families: readonly IPFamily[] =
    opts.node.ipFamilies.length > 0 ? opts.node.ipFamilies : ["IPv4"];
  return families.map((family) => {
    const plan = planFamily(cluster, proxierSettings(cluster, family, opts));
    const sections = renderRestoreSections(plan, opts);
    return { family, plan, restore: sections.text(), nodeState: nodeStateRestoreText(sections) };
  });
}
