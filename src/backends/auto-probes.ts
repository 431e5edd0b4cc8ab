/**
 * The automatic probe set of `verify --auto`: every service port (ClusterIP, external IPs,
 * LoadBalancer ingress) from a pod on this node, from the node and from the external client;
 * every NodePort on the node's address of each of the service's families from the same three
 * (and on 127.0.0.1 from the node when kube-proxy's iptables mode serves localhost NodePorts,
 * which it does for IPv4 only); every hostPort of a pod on this node from the same three; every
 * ordered pair of a pod on this node and a pod some NetworkPolicy selects, on the policy's
 * numeric ports and the target's container ports; the same for the pod pairs
 * AdminNetworkPolicy, BaselineAdminNetworkPolicy and ClusterNetworkPolicy make relevant
 * (admin-policy-pairs.ts). Both families: a probe leaves from an address of its destination's
 * family (the first pod on this node that has one), and a source without one is left out. In a
 * stable order, each with its own source port.
 */
import type { Cluster } from "../model/cluster.js";
import type { KubeProxyConfiguration } from "../model/proxy-config.js";
import { canonicalIP, ipFamilyOf, type IPFamily } from "../net/index.js";
import { compileSelector } from "../policy/label-selector.js";
import { adminPolicyPairs } from "./admin-policy-pairs.js";
import type { Probe, ProbeProtocol, Scenario } from "./backend.js";
import { layoutOf, podAddresses, sideOf } from "./layout.js";

const FIRST_SOURCE_PORT = 41000;

function canonical(s: string | undefined | null): string | undefined {
  return s === undefined || s === null ? undefined : canonicalIP(s);
}

function protocolOf(p: string | undefined): ProbeProtocol {
  return p === "UDP" ? "udp" : p === "SCTP" ? "sctp" : "tcp";
}

export interface AutoProbeOptions {
  readonly proxyConfig: KubeProxyConfiguration;
}

export function autoProbes(cluster: Cluster, scenario: Scenario, opts: AutoProbeOptions): Probe[] {
  const layout = layoutOf(scenario);
  const hasFamily = (pod: Scenario["pods"][number], family: IPFamily | undefined): boolean =>
    podAddresses(pod).some((a) => ipFamilyOf(a) === family);
  /** Whether `from` has an address of `to`'s family to send from. */
  const sendable = (from: string, to: string): boolean => {
    const family = ipFamilyOf(to);
    if (family === undefined) return false;
    if (from === "node" || from === "external") return sideOf(layout, family) !== undefined;
    const pod = scenario.pods.find((p) => p.name === from);
    return pod !== undefined && hasFamily(pod, family);
  };
  /** The three sources of a service probe: a pod on this node (one of `to`'s family), node, external. */
  const sourcesFor = (to: string): string[] => {
    const pod = scenario.pods.find((p) => hasFamily(p, ipFamilyOf(to)));
    return [...(pod !== undefined ? [pod.name] : []), "node", "external"];
  };
  const out: Probe[] = [];
  const seen = new Set<string>();
  const add = (p: Omit<Probe, "sourcePort">): void => {
    const key = `${p.protocol} ${p.from} ${p.to} ${p.port}`;
    if (seen.has(key) || !sendable(p.from, p.to)) return;
    seen.add(key);
    out.push({ ...p, sourcePort: FIRST_SOURCE_PORT + out.length });
  };
  for (const svc of cluster.services) {
    const spec = svc.spec;
    if (spec === undefined || spec.clusterIP === "None") continue;
    const clusterIPs = (spec.clusterIPs ?? (spec.clusterIP !== undefined ? [spec.clusterIP] : []))
      .map(canonical)
      .filter((a): a is string => a !== undefined);
    const addresses = [
      ...clusterIPs,
      ...[
        ...(spec.externalIPs ?? []),
        ...(svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? undefined),
      ]
        .map(canonical)
        .filter((a): a is string => a !== undefined),
    ];
    const families = new Set(clusterIPs.map(ipFamilyOf));
    if (families.size === 0) families.add("IPv4");
    for (const port of spec.ports ?? []) {
      const protocol = protocolOf(port.protocol);
      for (const to of addresses)
        for (const from of sourcesFor(to)) add({ protocol, from, to, port: port.port });
      if (port.nodePort !== undefined && port.nodePort !== null && port.nodePort !== 0) {
        for (const side of layout.sides) {
          if (!families.has(side.family)) continue;
          for (const from of sourcesFor(side.nodeSource))
            add({ protocol, from, to: side.nodeSource, port: port.nodePort });
        }
        if (
          families.has("IPv4") &&
          opts.proxyConfig.mode === "iptables" &&
          opts.proxyConfig.iptables.localhostNodePorts
        )
          add({ protocol, from: "node", to: "127.0.0.1", port: port.nodePort });
      }
    }
  }
  for (const pod of cluster.pods) {
    if (pod.spec?.nodeName !== scenario.node.nodeName) continue;
    for (const c of pod.spec?.containers ?? [])
      for (const p of c.ports ?? []) {
        if (p.hostPort === undefined || p.hostPort === null || p.hostPort === 0) continue;
        const to = canonical(p.hostIP) ?? layout.nodeSource;
        for (const from of sourcesFor(to))
          add({ protocol: protocolOf(p.protocol), from, to, port: p.hostPort });
      }
  }
  const local = new Set(scenario.pods.map((p) => p.name));
  for (const policy of cluster.networkPolicies) {
    const ns = policy.metadata?.namespace ?? "default";
    const selector = compileSelector(policy.spec?.podSelector);
    const ports = [...(policy.spec?.ingress ?? []), ...(policy.spec?.egress ?? [])].flatMap((r) =>
      (r.ports ?? []).flatMap((p) =>
        typeof p.port === "number" ? [{ protocol: protocolOf(p.protocol), port: p.port }] : [],
      ),
    );
    for (const target of cluster.pods) {
      if ((target.metadata?.namespace ?? "default") !== ns) continue;
      if (!selector.matches(target.metadata?.labels ?? {})) continue;
      if (target.spec?.hostNetwork === true) continue;
      const addresses = [
        ...new Set(
          [target.status?.podIP, ...(target.status?.podIPs ?? []).map((p) => p.ip)]
            .map(canonical)
            .filter((a): a is string => a !== undefined),
        ),
      ];
      const targetName = `${ns}/${target.metadata?.name ?? ""}`;
      const targetPorts = [
        ...ports,
        ...(target.spec?.containers ?? []).flatMap((c) =>
          (c.ports ?? []).map((p) => ({ protocol: protocolOf(p.protocol), port: p.containerPort })),
        ),
      ];
      for (const to of addresses)
        for (const from of local)
          if (from !== targetName)
            for (const p of targetPorts) add({ protocol: p.protocol, from, to, port: p.port });
    }
  }
  for (const p of adminPolicyPairs(cluster, local)) add(p);
  return out;
}
