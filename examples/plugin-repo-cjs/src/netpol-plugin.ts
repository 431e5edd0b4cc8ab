/**
 * "tinypol": a small NetworkPolicy plugin, as a third party would write one. For every pod on
 * the node that an ingress NetworkPolicy selects it writes a filter chain (allowed sources as
 * ipsets, allowed ports per protocol, then DROP) and jumps to it from FORWARD by the pod's IP.
 * It supports what its users need: matchLabels selectors, pod and namespace peers, numeric
 * ports and endPort ranges. The conformance suite tests what it writes, not how.
 */
import type { AdapterInput, ConformanceAdapter, NodeState } from "kube-netsim/testing";

type Cluster = AdapterInput["cluster"];
type Pod = Cluster["pods"][number];
type Policy = Cluster["networkPolicies"][number];
type Labels = { readonly [key: string]: string } | undefined;

export interface PluginOptions {
  /**
   * Reproduces a bug from a refactor: the NetworkPolicyPort's protocol is lost on the way to
   * the rule writer, so the port is opened for TCP, UDP and SCTP alike.
   */
  readonly protocolDropped?: boolean;
}

function hash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return ("0000000" + h.toString(16)).slice(-8);
}

function key(o: { metadata?: { namespace?: string; name?: string } }): string {
  return `${o.metadata?.namespace ?? "default"}/${o.metadata?.name ?? ""}`;
}

function matches(
  selector: { matchLabels?: Labels; matchExpressions?: unknown[] } | undefined,
  labels: Labels,
): boolean {
  if (selector === undefined) return true;
  if (selector.matchExpressions !== undefined && selector.matchExpressions.length > 0)
    throw new Error("tinypol supports matchLabels selectors only");
  const want = selector.matchLabels ?? {};
  return Object.keys(want).every((k) => labels !== undefined && labels[k] === want[k]);
}

function namespaceLabels(cluster: Cluster, name: string): Labels {
  const ns = cluster.namespaces.find((n) => n.metadata?.name === name);
  return ns?.metadata?.labels ?? { "kubernetes.io/metadata.name": name };
}

function isIngress(p: Policy): boolean {
  return (p.spec?.policyTypes ?? ["Ingress"]).indexOf("Ingress") >= 0;
}

type Rule = NonNullable<NonNullable<Policy["spec"]>["ingress"]>[number];
type Peer = NonNullable<Rule["from"]>[number];
type Port = NonNullable<Rule["ports"]>[number];

function peerPods(cluster: Cluster, policyNs: string, peer: Peer): Pod[] {
  if (peer.ipBlock !== undefined) throw new Error("tinypol does not support ipBlock peers");
  return cluster.pods.filter((pod) => {
    const ns = pod.metadata?.namespace ?? "default";
    const nsOK =
      peer.namespaceSelector === undefined
        ? ns === policyNs
        : matches(peer.namespaceSelector, namespaceLabels(cluster, ns));
    return (
      nsOK && matches(peer.podSelector, pod.metadata?.labels) && pod.status?.podIP !== undefined
    );
  });
}

function portMatches(port: Port, options: PluginOptions): string[] {
  if (typeof port.port === "string") throw new Error("tinypol does not support named ports");
  const protocol = (port.protocol ?? "TCP").toLowerCase();
  const range =
    port.port === undefined
      ? ""
      : ` --dport ${port.port}${port.endPort !== undefined ? `:${port.endPort}` : ""}`;
  const protocols = options.protocolDropped === true ? ["tcp", "udp", "sctp"] : [protocol];
  return protocols.map((p) => `-p ${p} -m ${p}${range}`);
}

/** The node's filter table and ipsets for the NetworkPolicies of the pods on it. */
export function tinypolState(input: AdapterInput, options: PluginOptions = {}): NodeState {
  const { cluster } = input;
  const chains: string[] = [];
  const rules: string[] = ["-A FORWARD -j TINYPOL-FORWARD"];
  const jumps: string[] = [];
  const sets: string[] = [];
  const created: string[] = [];
  const attachments: { [ip: string]: string } = {};
  for (const pod of input.pods) {
    const ip = pod.status?.podIP;
    if (ip === undefined || pod.spec?.hostNetwork === true) continue;
    attachments[ip] = `tp${hash(key(pod))}`;
    const ns = pod.metadata?.namespace ?? "default";
    const selecting = cluster.networkPolicies.filter(
      (p) =>
        (p.metadata?.namespace ?? "default") === ns &&
        isIngress(p) &&
        matches(p.spec?.podSelector, pod.metadata?.labels),
    );
    if (selecting.length === 0) continue;
    const chain = `TINYPOL-POD-${hash(key(pod))}`;
    chains.push(`:${chain} - [0:0]`);
    jumps.push(`-A TINYPOL-FORWARD -d ${ip}/32 -j ${chain}`);
    for (const policy of selecting) {
      (policy.spec?.ingress ?? []).forEach((rule, r) => {
        let source = "";
        if (rule.from !== undefined && rule.from.length > 0) {
          const set = `TP-${hash(key(policy))}-${r}`;
          if (created.indexOf(set) < 0) {
            created.push(set);
            sets.push(`create ${set} hash:ip family inet hashsize 1024 maxelem 65536`);
            for (const peer of rule.from)
              for (const p of peerPods(cluster, ns, peer))
                sets.push(`add ${set} ${p.status?.podIP}`);
          }
          source = ` -m set --match-set ${set} src`;
        }
        const ports = rule.ports !== undefined && rule.ports.length > 0 ? rule.ports : undefined;
        const matchesOfPorts =
          ports === undefined
            ? [""]
            : ports.map((p) => portMatches(p, options)).reduce((a, b) => a.concat(b), []);
        for (const m of matchesOfPorts)
          rules.push(`-A ${chain}${source}${m === "" ? "" : " " + m} -j ACCEPT`);
      });
    }
    rules.push(`-A ${chain} -j DROP`);
  }
  const filter = [
    "*filter",
    ":INPUT ACCEPT [0:0]",
    ":FORWARD ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":TINYPOL-FORWARD - [0:0]",
    ...chains,
    rules[0] as string,
    "-A TINYPOL-FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
    ...jumps,
    ...rules.slice(1),
    "COMMIT",
    "",
  ].join("\n");
  return { iptables: { IPv4: filter }, ipsets: sets.join("\n") + "\n", attachments };
}

export const tinypol: ConformanceAdapter = {
  name: "tinypol",
  features: ["networkPolicy"],
  nodeState: (input) => tinypolState(input),
};

/** tinypol with the protocol bug, to see what the suite says about it. */
export const tinypolProtocolDropped: ConformanceAdapter = {
  name: "tinypol (protocol dropped)",
  features: ["networkPolicy"],
  nodeState: (input) => tinypolState(input, { protocolDropped: true }),
};
