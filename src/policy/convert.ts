/**
 * `convertToV1alpha2`: AdminNetworkPolicy / BaselineAdminNetworkPolicy (v1alpha1) rewritten as
 * equivalent ClusterNetworkPolicies (spec cluster-network-policy.md §4): kind and apiVersion,
 * `tier`, `Allow` -> `Accept`, `ports` -> `protocols` (the defaulted protocol becomes the key),
 * `portRange` -> `range` (a one-port range becomes `number`, as the v1alpha2 CEL demands),
 * `namedPort` -> `destinationNamedPort`. The BANP gets a priority (`baselinePriority`, default
 * 1000, the last one checked: where the BANP sat). Names are kept unless taken by a CNP already
 * in the input (then `admin-NAME`) or, for the BANP, by an ANP or CNP (then `baseline-NAME`).
 * Lists over the v1alpha2 cap of 25 are split without changing meaning: peers (ORed) and
 * protocol entries (ORed) into consecutive copies of the rule; more than 25 rules cannot be split
 * inside one policy without changing order guarantees, so that is a problem to report.
 */
import type {
  AdminNetworkPolicy,
  AdminNetworkPolicyEgressPeer,
  AdminNetworkPolicyPort,
  BaselineAdminNetworkPolicy,
  ClusterNetworkPolicy,
  ClusterNetworkPolicyEgressPeer,
  ClusterNetworkPolicyEgressRule,
  ClusterNetworkPolicyProtocol,
  ClusterNetworkPolicyRuleAction,
} from "../model/kinds.js";
import type { Cluster } from "../model/cluster.js";

export const CNP_API_VERSION = "policy.networking.k8s.io/v1alpha2";
const MAX = 25;

export interface ConvertOptions {
  /** Priority of the Baseline CNP made from the BANP; default 1000. */
  readonly baselinePriority?: number;
}

export interface ConvertResult {
  readonly policies: ClusterNetworkPolicy[];
  /** One line each: what could not be converted faithfully. */
  readonly problems: string[];
}

function protocolKey(p: string | undefined): "tcp" | "udp" | "sctp" {
  return p === "UDP" ? "udp" : p === "SCTP" ? "sctp" : "tcp";
}

function convertPort(p: AdminNetworkPolicyPort): ClusterNetworkPolicyProtocol {
  if (p.portNumber !== undefined)
    return {
      [protocolKey(p.portNumber.protocol)]: { destinationPort: { number: p.portNumber.port } },
    };
  if (p.portRange !== undefined) {
    const { start, end } = p.portRange;
    return {
      [protocolKey(p.portRange.protocol)]: {
        destinationPort: start === end ? { number: start } : { range: { start, end } },
      },
    };
  }
  return { destinationNamedPort: p.namedPort ?? "" };
}

function convertPeer(p: AdminNetworkPolicyEgressPeer): ClusterNetworkPolicyEgressPeer {
  const out: ClusterNetworkPolicyEgressPeer = {};
  if (p.namespaces !== undefined) out.namespaces = p.namespaces;
  if (p.pods !== undefined)
    out.pods = { namespaceSelector: p.pods.namespaceSelector, podSelector: p.pods.podSelector };
  if (p.nodes !== undefined) out.nodes = p.nodes;
  if (p.networks !== undefined) out.networks = [...p.networks];
  if (p.domainNames !== undefined) out.domainNames = [...p.domainNames];
  return out;
}

function chunks<T>(list: readonly T[]): T[][] {
  if (list.length === 0) return [[]];
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += MAX) out.push(list.slice(i, i + MAX));
  return out;
}

interface V1Rule {
  readonly name?: string;
  readonly action: string;
  readonly peers: readonly AdminNetworkPolicyEgressPeer[];
  readonly ports?: readonly AdminNetworkPolicyPort[];
}

function convertRules(rules: readonly V1Rule[]): ClusterNetworkPolicyEgressRule[] {
  const out: ClusterNetworkPolicyEgressRule[] = [];
  for (const r of rules) {
    const action: ClusterNetworkPolicyRuleAction =
      r.action === "Allow" ? "Accept" : (r.action as ClusterNetworkPolicyRuleAction);
    const protocolChunks = r.ports === undefined ? [undefined] : chunks(r.ports.map(convertPort));
    for (const peers of chunks(r.peers.map(convertPeer)))
      for (const protocols of protocolChunks)
        out.push({
          ...(r.name !== undefined ? { name: r.name } : {}),
          action,
          to: peers,
          ...(protocols !== undefined ? { protocols } : {}),
        });
  }
  return out;
}

function convertOne(
  name: string,
  tier: "Admin" | "Baseline",
  priority: number,
  spec: AdminNetworkPolicy["spec"] | BaselineAdminNetworkPolicy["spec"],
  problems: string[],
  what: string,
): ClusterNetworkPolicy {
  const ingress = convertRules((spec.ingress ?? []).map((r) => ({ ...r, peers: r.from })));
  const egress = convertRules((spec.egress ?? []).map((r) => ({ ...r, peers: r.to })));
  for (const [dir, list] of [
    ["ingress", ingress],
    ["egress", egress],
  ] as const)
    if (list.length > MAX)
      problems.push(
        `${what}: ${list.length} ${dir} rules after conversion, more than the v1alpha2 limit of ${MAX}: split the policy by hand`,
      );
  const s = spec.subject;
  return {
    apiVersion: CNP_API_VERSION,
    kind: "ClusterNetworkPolicy",
    metadata: { name },
    spec: {
      tier,
      priority,
      subject:
        s.pods !== undefined
          ? {
              pods: {
                namespaceSelector: s.pods.namespaceSelector,
                podSelector: s.pods.podSelector,
              },
            }
          : { namespaces: s.namespaces ?? {} },
      ...(ingress.length > 0
        ? { ingress: ingress.map(({ to, ...rest }) => ({ ...rest, from: to })) }
        : {}),
      ...(egress.length > 0 ? { egress } : {}),
    },
  };
}

export function convertToV1alpha2(
  input:
    | Cluster
    | {
        readonly adminNetworkPolicies: readonly AdminNetworkPolicy[];
        readonly baselineAdminNetworkPolicies: readonly BaselineAdminNetworkPolicy[];
        readonly clusterNetworkPolicies?: readonly ClusterNetworkPolicy[];
      },
  options: ConvertOptions = {},
): ConvertResult {
  const problems: string[] = [];
  const policies: ClusterNetworkPolicy[] = [];
  // CNP names must stay unique next to the CNPs the input already has.
  const taken = new Set((input.clusterNetworkPolicies ?? []).map((p) => p.metadata?.name ?? ""));
  for (const anp of input.adminNetworkPolicies) {
    const own = anp.metadata?.name ?? "";
    const name = taken.has(own) ? `admin-${own}` : own;
    taken.add(name);
    policies.push(
      convertOne(
        name,
        "Admin",
        anp.spec.priority,
        anp.spec,
        problems,
        `AdminNetworkPolicy ${name}`,
      ),
    );
  }
  for (const banp of input.baselineAdminNetworkPolicies) {
    const own = banp.metadata?.name ?? "default";
    const name = taken.has(own) ? `baseline-${own}` : own;
    policies.push(
      convertOne(
        name,
        "Baseline",
        options.baselinePriority ?? 1000,
        banp.spec,
        problems,
        `BaselineAdminNetworkPolicy ${own}`,
      ),
    );
  }
  return { policies, problems };
}
