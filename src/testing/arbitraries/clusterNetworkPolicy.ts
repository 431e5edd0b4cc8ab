/**
 * `arbClusterNetworkPolicy(constraints)`: ClusterNetworkPolicy v1alpha2 objects over the
 * `policyCluster` vocabulary: either tier, priorities 0..3 (so ties happen, inside the tier and
 * with ANPs), Accept/Deny/Pass rules whose order matters, namespace/pod peers (`pods` with and
 * without a namespaceSelector), networks around pod IPs, and protocol entries with numbers,
 * ranges (start < end, as the CRD demands) and named ports, or no `protocols` at all. Valid
 * against the experimental CRD (named ports never sit beside a networks peer).
 */
import fc from "fast-check";
import type {
  ClusterNetworkPolicy,
  ClusterNetworkPolicyEgressPeer,
  ClusterNetworkPolicyNamespacedPod,
  ClusterNetworkPolicyProtocol,
  ClusterNetworkPolicyRuleAction,
  ClusterNetworkPolicyTier,
} from "../../model/kinds.js";
import { NAMESPACE_LABELS, POD_LABELS, policyLabelSelector } from "./policyLabelSelector.js";

export interface ClusterNetworkPolicyConstraints {
  /** Names the policy `cnp-<index>`; default 0. */
  readonly index?: number;
  readonly tier?: ClusterNetworkPolicyTier;
  /** Fixed priority; default 0..3. */
  readonly priority?: number;
  readonly actions?: readonly ClusterNetworkPolicyRuleAction[];
}

const nsSel = policyLabelSelector(NAMESPACE_LABELS);
const podSel = policyLabelSelector(POD_LABELS);

const namespacedPod: fc.Arbitrary<ClusterNetworkPolicyNamespacedPod> = fc.oneof(
  fc.record({ namespaceSelector: nsSel, podSelector: podSel }),
  podSel.map((podSelector) => ({ podSelector })),
);

const podPeer: fc.Arbitrary<ClusterNetworkPolicyEgressPeer> = fc.oneof(
  nsSel.map((namespaces) => ({ namespaces })),
  namespacedPod.map((pods) => ({ pods })),
);

const networksPeer: fc.Arbitrary<ClusterNetworkPolicyEgressPeer> = fc
  .subarray(["10.0.1.0/24", "10.0.2.2/32", "10.0.0.7/16", "0.0.0.0/0", "fd00::/64"], {
    minLength: 1,
  })
  .map((networks) => ({ networks }));

export const cnpProtocol: fc.Arbitrary<ClusterNetworkPolicyProtocol> = fc.oneof(
  fc
    .record({ key: fc.constantFrom("tcp", "udp", "sctp"), number: fc.constantFrom(80, 81) })
    .map(({ key, number }) => ({ [key]: { destinationPort: { number } } })),
  fc
    .record({
      key: fc.constantFrom("tcp", "udp", "sctp"),
      start: fc.constantFrom(79, 80, 81),
      span: fc.constantFrom(1, 5),
    })
    .map(({ key, start, span }) => ({
      [key]: { destinationPort: { range: { start, end: start + span } } },
    })),
  fc
    .constantFrom("serve-80-tcp", "serve-81-udp", "serve-80-sctp", "nope")
    .map((destinationNamedPort) => ({ destinationNamedPort })),
);

interface ArbRule {
  name: string;
  action: ClusterNetworkPolicyRuleAction;
  peers: ClusterNetworkPolicyEgressPeer[];
  protocols?: ClusterNetworkPolicyProtocol[];
}

function rules(
  actions: readonly ClusterNetworkPolicyRuleAction[],
  egress: boolean,
): fc.Arbitrary<ArbRule[]> {
  const rule: fc.Arbitrary<ArbRule> = fc
    .record(
      {
        action: fc.constantFrom(...actions),
        peers: fc.array(
          egress
            ? fc.oneof({ weight: 4, arbitrary: podPeer }, { weight: 1, arbitrary: networksPeer })
            : podPeer,
          { minLength: 1, maxLength: 2 },
        ),
        protocols: fc.array(cnpProtocol, { minLength: 1, maxLength: 2 }),
      },
      { requiredKeys: ["action", "peers"] },
    )
    .map((r) => {
      // The experimental CRD's CEL: no named port beside a networks peer.
      const ip = r.peers.some((p) => p.networks !== undefined);
      const protocols = ip
        ? r.protocols?.filter((p) => p.destinationNamedPort === undefined)
        : r.protocols;
      return {
        name: "",
        action: r.action,
        peers: r.peers,
        ...(protocols !== undefined && protocols.length > 0 ? { protocols } : {}),
      };
    });
  return fc.array(rule, { maxLength: 3 }).map((rs) => rs.map((r, i) => ({ ...r, name: `r${i}` })));
}

export function arbClusterNetworkPolicy(
  c: ClusterNetworkPolicyConstraints = {},
): fc.Arbitrary<ClusterNetworkPolicy> {
  const actions = c.actions ?? (["Accept", "Deny", "Pass"] as const);
  return fc
    .record({
      tier:
        c.tier !== undefined
          ? fc.constant(c.tier)
          : fc.constantFrom("Admin" as const, "Baseline" as const),
      priority: c.priority !== undefined ? fc.constant(c.priority) : fc.integer({ min: 0, max: 3 }),
      subject: fc.oneof(
        nsSel.map((namespaces) => ({ namespaces })),
        namespacedPod.map((pods) => ({ pods })),
      ),
      ingress: rules(actions, false),
      egress: rules(actions, true),
    })
    .map((s) => ({
      apiVersion: "policy.networking.k8s.io/v1alpha2",
      kind: "ClusterNetworkPolicy" as const,
      metadata: { name: `cnp-${c.index ?? 0}` },
      spec: {
        tier: s.tier,
        priority: s.priority,
        subject: s.subject,
        ...(s.ingress.length > 0
          ? { ingress: s.ingress.map(({ peers, ...r }) => ({ ...r, from: peers })) }
          : {}),
        ...(s.egress.length > 0
          ? { egress: s.egress.map(({ peers, ...r }) => ({ ...r, to: peers })) }
          : {}),
      },
    }));
}
