/**
 * Equivalence classes of pods for truth tables. Two pods are in one class when every fact the
 * evaluator can read about them is the same: namespace and its labels, pod labels, hostNetwork
 * (and node, when node traffic exists), the named ports some policy refers to, and, per IP, its
 * family and which policy CIDRs / ANP node addresses contain it. Pod names and IP identity never
 * reach a verdict (loopback is decided before), so a verdict computed for class representatives
 * holds for every pod pair of those classes.
 */
import { cidrContains } from "../net/cidr.js";
import { formatIP } from "../net/address.js";
import type { CompiledPolicies } from "./compiled.js";
import type { PodFacts } from "./facts.js";

export interface PodClasses {
  /** Port names some policy refers to (only those can tell pods apart). */
  readonly portNames: ReadonlySet<string>;
  /** Whether pods' nodes can matter (hostNetwork pods exist: ingress from the pod's own node). */
  readonly nodeMatters: boolean;
  /** Class id per pod, in `facts.pods` order. */
  readonly classOf: Int32Array;
  /** One representative pod per class. */
  readonly representatives: readonly PodFacts[];
}

function sortedEntries(l: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(l).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function referencedPortNames(cp: CompiledPolicies): Set<string> {
  const names = new Set<string>();
  for (const np of cp.allNetworkPolicies)
    for (const rules of [np.ingress ?? [], np.egress ?? []])
      for (const r of rules)
        if (r.ports !== "all") for (const p of r.ports) if (p.kind === "named") names.add(p.name);
  for (const a of [...cp.adminPolicies, ...cp.baselinePolicies])
    for (const r of [...a.ingress, ...a.egress])
      if (r.ports !== "all") for (const p of r.ports) if (p.kind === "named") names.add(p.name);
  return names;
}

function nodePeerAddresses(cp: CompiledPolicies): Set<string> {
  const out = new Set<string>();
  for (const a of [...cp.adminPolicies, ...cp.baselinePolicies])
    for (const r of [...a.ingress, ...a.egress])
      for (const p of r.peers) if (p.kind === "nodes") for (const x of p.addresses) out.add(x);
  return out;
}

export function podClasses(
  cp: CompiledPolicies,
  pods: readonly PodFacts[] = cp.facts.pods,
): PodClasses {
  const portNames = referencedPortNames(cp);
  const nodeAddrs = nodePeerAddresses(cp);
  // The node only matters for "ingress from the pod's own node", i.e. when hostNetwork pods exist.
  const nodeMatters = cp.facts.pods.some((p) => p.hostNetwork);
  const keys = new Map<string, number>();
  const representatives: PodFacts[] = [];
  const classOf = new Int32Array(pods.length);
  // Label sets repeat a lot; memoize their serialization by object identity.
  const labelKey = new Map<Readonly<Record<string, string>>, string>();
  const lk = (l: Readonly<Record<string, string>>): string => {
    let k = labelKey.get(l);
    if (k === undefined) {
      k = sortedEntries(l);
      labelKey.set(l, k);
    }
    return k;
  };
  for (const [i, pod] of pods.entries()) {
    const ports = pod.containerPorts
      .filter((c) => c.name !== undefined && portNames.has(c.name))
      .map((c) => `${c.name ?? ""}/${c.protocol}/${c.port}`)
      .sort()
      .join(",");
    const ips = pod.ips
      .map((ip) => {
        let bits = "";
        for (const c of cp.cidrs) bits += cidrContains(c, ip) ? "1" : "0";
        const text = formatIP(ip);
        return `${ip.family}:${bits}:${nodeAddrs.has(text) ? text : ""}`;
      })
      .join(";");
    const key = [
      pod.namespace,
      lk(pod.nsLabels),
      lk(pod.labels),
      pod.hostNetwork ? "h" : "p",
      nodeMatters ? (pod.nodeName ?? "") : "",
      ports,
      ips,
    ].join("\u0000");
    let id = keys.get(key);
    if (id === undefined) {
      id = representatives.length;
      keys.set(key, id);
      representatives.push(pod);
    }
    classOf[i] = id;
  }
  return { classOf, representatives, portNames, nodeMatters };
}
