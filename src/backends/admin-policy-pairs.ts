/**
 * The pod pairs AdminNetworkPolicy, BaselineAdminNetworkPolicy and ClusterNetworkPolicy make
 * relevant, for `verify --auto`: for a policy with ingress rules, every pod on this node to
 * every pod the policy's subject selects; for one with egress rules, every subject pod on this
 * node to every pod a rule's `pods`/`namespaces` peer selects. Each pair on the rules' port
 * ranges (both ends) and the target's container ports. Host-network pods are never subjects or
 * peers of these policies (isAdminPolicyPod). One pair per target address, of either family
 * (autoProbes keeps those whose source has an address of that family).
 */
import type { Cluster } from "../model/cluster.js";
import { formatIP } from "../net/index.js";
import type { Protocol } from "../net/port.js";
import type { AdminPeer, AdminRule, CompiledAdminPolicy } from "../policy/compiled.js";
import { compilePolicies } from "../policy/compile.js";
import { isAdminPolicyPod } from "../policy/connection.js";
import type { PodFacts } from "../policy/facts.js";
import { adminSelects } from "../policy/select.js";
import type { ProbeProtocol } from "./backend.js";

export interface PolicyPair {
  /** `ns/pod` on this node. */
  readonly from: string;
  /** An address of the target pod. */
  readonly to: string;
  readonly protocol: ProbeProtocol;
  readonly port: number;
}

interface PortRef {
  readonly protocol: ProbeProtocol;
  readonly port: number;
}

const probeProtocol = (p: Protocol): ProbeProtocol =>
  p === "UDP" ? "udp" : p === "SCTP" ? "sctp" : "tcp";

function addressesOf(pod: PodFacts): string[] {
  return pod.ips.map(formatIP);
}

/** Both ends of every numeric port range the rules name (named ports resolve per pod below). */
function rulePorts(rules: readonly AdminRule[]): PortRef[] {
  return rules.flatMap((r) =>
    r.ports === "all"
      ? []
      : r.ports.flatMap((p) =>
          p.kind === "range"
            ? [...new Set([p.from, p.to])].map((port) => ({
                protocol: probeProtocol(p.protocol),
                port,
              }))
            : [],
        ),
  );
}

function containerPorts(pod: PodFacts): PortRef[] {
  return pod.containerPorts.map((c) => ({ protocol: probeProtocol(c.protocol), port: c.port }));
}

function peerSelects(peer: AdminPeer, pod: PodFacts): boolean {
  switch (peer.kind) {
    case "namespaces":
      return peer.namespaces.matches(pod.nsLabels);
    case "pods":
      return peer.namespaces.matches(pod.nsLabels) && peer.pods.matches(pod.labels);
    case "nodes":
    case "networks":
    case "domainNames":
    case "unknown":
      return false;
  }
}

function pairsOfPolicy(
  policy: CompiledAdminPolicy,
  pods: readonly PodFacts[],
  local: ReadonlySet<string>,
): PolicyPair[] {
  const out: PolicyPair[] = [];
  const add = (from: string, target: PodFacts, ports: readonly PortRef[]): void => {
    if (from === target.id) return;
    for (const to of addressesOf(target))
      for (const p of [...ports, ...containerPorts(target)]) out.push({ from, to, ...p });
  };
  const candidates = pods.filter((p) => isAdminPolicyPod(p) && p.ips.length > 0);
  const subjects = candidates.filter((p) => adminSelects(policy, p));
  if (policy.ingress.length > 0) {
    const ports = rulePorts(policy.ingress);
    for (const target of subjects) for (const from of local) add(from, target, ports);
  }
  if (policy.egress.length > 0) {
    const ports = rulePorts(policy.egress);
    const peers = policy.egress.flatMap((r) => r.peers);
    const targets = candidates.filter((p) => peers.some((peer) => peerSelects(peer, p)));
    for (const subject of subjects) {
      if (!local.has(subject.id)) continue;
      for (const target of targets) add(subject.id, target, ports);
    }
  }
  return out;
}

/** Pairs of every admin-tier and baseline-tier policy (ANP, BANP, CNP), in evaluation order. */
export function adminPolicyPairs(cluster: Cluster, local: ReadonlySet<string>): PolicyPair[] {
  const compiled = compilePolicies(cluster);
  return [...compiled.adminPolicies, ...compiled.baselinePolicies].flatMap((p) =>
    pairsOfPolicy(p, compiled.facts.pods, local),
  );
}
