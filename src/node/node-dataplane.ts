/**
 * The node dataplane the simulator backend traces packets through, rendered from manifests:
 * the proxier's rule sets (one per family, built-in chain jumps included), plus the node's
 * interfaces and nfacct objects. The IPVS and hostports areas add their state here.
 */
import type { Cluster } from "../model/cluster.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import type { KubeProxyConfiguration } from "../model/proxy-config.js";
import { renderIptables } from "../proxiers/iptables/render-iptables.js";
import { renderNftables } from "../proxiers/nftables/render-nftables.js";
import { buildDataplane, type NodeDataplane } from "../netfilter/trace/dataplane.js";
import type { RuleSet } from "../netfilter/model.js";
import { hostportRulesForNode, withHostportRules, type HostportImpl } from "../hostports/index.js";
import { ipvsDataplaneInput } from "./ipvs-dataplane.js";

export interface NodeDataplaneOptions {
  readonly proxyConfig: KubeProxyConfiguration;
  readonly node: NodeEnvironment;
  /** Whose hostPort rules join kube-proxy's in the nat table (default kubenet); false: none. */
  readonly hostports?: HostportImpl | false;
}

/** kube-proxy's rule sets with the node's hostPort rules merged into the nat table. */
export function withNodeHostports(
  ruleSets: readonly RuleSet[],
  cluster: Cluster,
  opts: NodeDataplaneOptions,
): RuleSet[] {
  if (opts.hostports === false) return [...ruleSets];
  const hostports = hostportRulesForNode(cluster, opts.node, { impl: opts.hostports ?? "kubenet" });
  return withHostportRules(ruleSets, hostports);
}

export function buildNodeDataplane(cluster: Cluster, opts: NodeDataplaneOptions): NodeDataplane {
  switch (opts.proxyConfig.mode) {
    case "iptables": {
      const rendered = renderIptables(cluster, opts);
      return buildDataplane({
        ruleSets: withNodeHostports(
          rendered.families.map((f) => f.ruleSet),
          cluster,
          opts,
        ),
        interfaces: opts.node.interfaces,
        ...(opts.node.routes !== undefined ? { routes: opts.node.routes } : {}),
        nfacct: opts.node.kernel.nfacct,
      });
    }
    case "ipvs": {
      const { input } = ipvsDataplaneInput(cluster, opts);
      return buildDataplane({
        ...input,
        ...(opts.node.routes !== undefined ? { routes: opts.node.routes } : {}),
        ruleSets: withNodeHostports(input.ruleSets, cluster, opts),
      });
    }
    case "nftables": {
      const rendered = renderNftables(cluster, opts);
      return buildDataplane({
        ruleSets: withNodeHostports([], cluster, opts),
        nftables: rendered.ruleSet.tables,
        interfaces: opts.node.interfaces,
        nfacct: opts.node.kernel.nfacct,
      });
    }
  }
}
