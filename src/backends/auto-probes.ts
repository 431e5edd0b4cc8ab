/**
 * The automatic probe set of `verify --auto`: every service port (ClusterIP, external IPs,
 * LoadBalancer ingress) from a pod on this node, from the node and from the external client;
 * every NodePort on the node's address from the same three (and on 127.0.0.1 from the node
 * when kube-proxy's iptables mode serves localhost NodePorts); every hostPort of a pod on this
 * node from the same three; every ordered pair of a pod on
 * this node and a pod some NetworkPolicy selects, on the policy's numeric ports and the target's
 * container ports; the same for the pod pairs AdminNetworkPolicy, BaselineAdminNetworkPolicy
 * and ClusterNetworkPolicy make relevant (admin-policy-pairs.ts). IPv4 only, in a stable order,
 * each with its own source port.
 */
import type { Cluster } from "../model/cluster.js";
import type { KubeProxyConfiguration } from "../model/proxy-config.js";
import { formatIP, parseIP } from "../net/index.js";
import { compileSelector } from "../policy/label-selector.js";
import { adminPolicyPairs } from "./admin-policy-pairs.js";
import type { Probe, ProbeProtocol, Scenario } from "./backend.js";
import { layoutOf } from "./layout.js";

const FIRST_SOURCE_PORT = 41000;

function v4(s: string | undefined | null): string | undefined {
  if (s === undefined || s === null) return undefined;
  const a = parseIP(s, "lenient");
  return a?.family === "IPv4" ? formatIP(a) : undefined;
}

function protocolOf(p: string | undefined): ProbeProtocol {
  return p === "UDP" ? "udp" : p === "SCTP" ? "sctp" : "tcp";
}

export interface AutoProbeOptions {
  readonly proxyConfig: KubeProxyConfiguration;
}

export function autoProbes(cluster: Cluster, scenario: Scenario, opts: AutoProbeOptions): Probe[] {
  const layout = layoutOf(scenario);
  const podSource = scenario.pods[0]?.name;
  const sources = [...(podSource !== undefined ? [podSource] : []), "node", "external"];
  const out: Probe[] = [];
  const seen = new Set<string>();
  const add = (p: Omit<Probe, "sourcePort">): void => {
    const key = `${p.protocol} ${p.from} ${p.to} ${p.port}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ ...p, sourcePort: FIRST_SOURCE_PORT + out.length });
  };
  for (const svc of cluster.services) {
    const spec = svc.spec;
    if (spec === undefined || spec.clusterIP === "None") continue;
    const addresses = [
      ...(spec.clusterIPs ?? (spec.clusterIP !== undefined ? [spec.clusterIP] : [])),
      ...(spec.externalIPs ?? []),
      ...(svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? undefined),
    ]
      .map(v4)
      .filter((a): a is string => a !== undefined);
    for (const port of spec.ports ?? []) {
      const protocol = protocolOf(port.protocol);
      for (const to of addresses)
        for (const from of sources) add({ protocol, from, to, port: port.port });
      if (port.nodePort !== undefined && port.nodePort !== null && port.nodePort !== 0) {
        for (const from of sources)
          add({ protocol, from, to: layout.nodeSource, port: port.nodePort });
        if (opts.proxyConfig.mode === "iptables" && opts.proxyConfig.iptables.localhostNodePorts)
          add({ protocol, from: "node", to: "127.0.0.1", port: port.nodePort });
      }
    }
  }
  for (const pod of cluster.pods) {
    if (pod.spec?.nodeName !== scenario.node.nodeName) continue;
    for (const c of pod.spec?.containers ?? [])
      for (const p of c.ports ?? []) {
        if (p.hostPort === undefined || p.hostPort === null || p.hostPort === 0) continue;
        const to = v4(p.hostIP) ?? layout.nodeSource;
        for (const from of sources)
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
      const to = v4(target.status?.podIP);
      if (to === undefined || target.spec?.hostNetwork === true) continue;
      const targetName = `${ns}/${target.metadata?.name ?? ""}`;
      const targetPorts = [
        ...ports,
        ...(target.spec?.containers ?? []).flatMap((c) =>
          (c.ports ?? []).map((p) => ({ protocol: protocolOf(p.protocol), port: p.containerPort })),
        ),
      ];
      for (const from of local)
        if (from !== targetName)
          for (const p of targetPorts) add({ protocol: p.protocol, from, to, port: p.port });
    }
  }
  for (const p of adminPolicyPairs(cluster, local)) add(p);
  return out;
}
