/**
 * The facts about pods, namespaces and nodes that policy evaluation reads, taken from the cluster
 * once. The evaluator never looks at raw API objects again, which is also what makes equivalence
 * classes possible: two pods with the same facts (except name and IPs' identity) get the same
 * verdicts.
 */
import type { Cluster } from "../model/cluster.js";
import { parseIP, formatIP, type IPAddress } from "../net/address.js";
import { isProtocol, type Protocol } from "../net/port.js";
import type { Labels } from "../model/selector.js";
import { NAMESPACE_NAME_LABEL } from "../model/defaults.js";

export interface ContainerPortFact {
  readonly name: string | undefined;
  readonly port: number;
  readonly protocol: Protocol;
}

export interface PodFacts {
  /** `ns/name` */
  readonly id: string;
  readonly namespace: string;
  readonly name: string;
  readonly nsLabels: Labels;
  readonly labels: Labels;
  /** status.podIPs (or status.podIP), in order; empty for a pod without an IP. */
  readonly ips: readonly IPAddress[];
  readonly hostNetwork: boolean;
  readonly nodeName: string | undefined;
  readonly containerPorts: readonly ContainerPortFact[];
}

export interface NodeFacts {
  readonly name: string;
  readonly labels: Labels;
  /** status.addresses that parse as IPs, canonical text. */
  readonly addresses: readonly string[];
}

export interface ClusterFacts {
  readonly pods: readonly PodFacts[];
  readonly podsById: ReadonlyMap<string, PodFacts>;
  /** Canonical IP text -> pod-network pods with that IP (hostNetwork pods share node IPs). */
  readonly podsByIP: ReadonlyMap<string, readonly PodFacts[]>;
  readonly nodes: readonly NodeFacts[];
  /** Canonical IP text -> node name. */
  readonly nodeByIP: ReadonlyMap<string, string>;
  /** Namespace name -> labels, with the immutable `kubernetes.io/metadata.name` synthesized. */
  readonly namespaceLabels: ReadonlyMap<string, Labels>;
}

/** Namespace labels as the API server stores them (the name label is always present). */
export function namespaceLabelsOf(name: string, labels: Labels | undefined): Labels {
  return { ...(labels ?? {}), [NAMESPACE_NAME_LABEL]: name };
}

export function clusterFacts(cluster: Cluster): ClusterFacts {
  const namespaceLabels = new Map<string, Labels>();
  for (const ns of cluster.namespaces) {
    const name = ns.metadata?.name ?? "";
    namespaceLabels.set(name, namespaceLabelsOf(name, ns.metadata?.labels));
  }
  const pods: PodFacts[] = [];
  const podsById = new Map<string, PodFacts>();
  const podsByIP = new Map<string, PodFacts[]>();
  for (const pod of cluster.pods) {
    const namespace = pod.metadata?.namespace ?? "default";
    const name = pod.metadata?.name ?? "";
    let nsLabels = namespaceLabels.get(namespace);
    if (nsLabels === undefined) {
      // Referenced but undeclared namespaces exist implicitly with only the name label.
      nsLabels = namespaceLabelsOf(namespace, undefined);
      namespaceLabels.set(namespace, nsLabels);
    }
    const ipTexts =
      pod.status?.podIPs?.map((p) => p.ip) ??
      (pod.status?.podIP !== undefined ? [pod.status.podIP] : []);
    const ips: IPAddress[] = [];
    for (const t of ipTexts) {
      const a = t === undefined ? undefined : parseIP(t, "lenient");
      if (a !== undefined) ips.push(a);
    }
    const containerPorts: ContainerPortFact[] = [];
    for (const c of pod.spec?.containers ?? []) {
      for (const p of c.ports ?? []) {
        const protocol = p.protocol ?? "TCP";
        if (!isProtocol(protocol)) continue;
        containerPorts.push({ name: p.name, port: p.containerPort, protocol });
      }
    }
    const facts: PodFacts = {
      id: `${namespace}/${name}`,
      namespace,
      name,
      nsLabels,
      labels: { ...(pod.metadata?.labels ?? {}) },
      ips,
      hostNetwork: pod.spec?.hostNetwork === true,
      nodeName: pod.spec?.nodeName,
      containerPorts,
    };
    pods.push(facts);
    podsById.set(facts.id, facts);
    for (const ip of ips) {
      const key = formatIP(ip);
      const list = podsByIP.get(key);
      if (list === undefined) podsByIP.set(key, [facts]);
      else list.push(facts);
    }
  }
  const nodes: NodeFacts[] = [];
  const nodeByIP = new Map<string, string>();
  for (const node of cluster.nodes) {
    const name = node.metadata?.name ?? "";
    const addresses: string[] = [];
    for (const a of node.status?.addresses ?? []) {
      const ip = parseIP(a.address, "lenient");
      if (ip === undefined) continue;
      const text = formatIP(ip);
      addresses.push(text);
      if (!nodeByIP.has(text)) nodeByIP.set(text, name);
    }
    nodes.push({ name, labels: { ...(node.metadata?.labels ?? {}) }, addresses });
  }
  for (const p of pods) {
    // hostIP of a hostNetwork pod is its node's address even when no Node object is loaded.
    if (p.hostNetwork && p.nodeName !== undefined)
      for (const ip of p.ips) {
        const text = formatIP(ip);
        if (!nodeByIP.has(text)) nodeByIP.set(text, p.nodeName);
      }
  }
  return { pods, podsById, podsByIP, nodes, nodeByIP, namespaceLabels };
}
