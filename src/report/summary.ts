/**
 * The node at a glance: Services by type and protocol, where SCTP is used (Services, pods,
 * policies), and what the node's hostports need: the host sockets held open and the kernel
 * modules the rules load (the SCTP test plan's "no sctp module" check).
 */
import type { Cluster } from "../model/cluster.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import { hostportRulesForNode, nodeModuleReport, type ModuleReport } from "../hostports/index.js";

export interface NodeSummary {
  /** type → protocol → number of Service ports. */
  readonly servicePorts: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly sctp: {
    readonly services: readonly string[];
    readonly pods: readonly string[];
    readonly policies: readonly string[];
  };
  readonly hostports?: ModuleReport | { readonly error: string };
}

export function nodeSummary(cluster: Cluster, node: NodeEnvironment | undefined): NodeSummary {
  const servicePorts: Record<string, Record<string, number>> = {};
  const sctpServices: string[] = [];
  for (const s of cluster.services) {
    const type = s.spec?.type ?? "ClusterIP";
    const byProto = (servicePorts[type] ??= {});
    for (const p of s.spec?.ports ?? []) {
      const proto = p.protocol ?? "TCP";
      byProto[proto] = (byProto[proto] ?? 0) + 1;
      if (proto === "SCTP")
        sctpServices.push(`${s.metadata?.namespace}/${s.metadata?.name}:${p.port}`);
    }
  }
  const sctpPods = cluster.pods
    .filter((p) =>
      (p.spec?.containers ?? []).some((c) => (c.ports ?? []).some((cp) => cp.protocol === "SCTP")),
    )
    .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);
  const sctpPolicies = [
    ...cluster.networkPolicies.map((p) => ({
      p,
      name: `NetworkPolicy ${p.metadata?.namespace}/${p.metadata?.name}`,
    })),
    ...cluster.adminNetworkPolicies.map((p) => ({
      p,
      name: `AdminNetworkPolicy ${p.metadata?.name}`,
    })),
    ...cluster.baselineAdminNetworkPolicies.map((p) => ({
      p,
      name: `BaselineAdminNetworkPolicy ${p.metadata?.name}`,
    })),
  ]
    .filter(({ p }) => JSON.stringify(p.spec ?? {}).includes('"SCTP"'))
    .map(({ name }) => name);
  let hostports: NodeSummary["hostports"];
  if (node !== undefined) {
    try {
      hostports = nodeModuleReport(hostportRulesForNode(cluster, node, { impl: "kubenet" }));
    } catch (e) {
      hostports = { error: e instanceof Error ? e.message : String(e) };
    }
  }
  return {
    servicePorts,
    sctp: { services: sctpServices, pods: sctpPods, policies: sctpPolicies },
    ...(hostports !== undefined ? { hostports } : {}),
  };
}
