/**
 * `adminNetworkPolicy(constraints)` and `baselineAdminNetworkPolicy()`: v1alpha1 objects over the
 * `policyCluster` vocabulary, with Allow/Deny/Pass rules whose order matters, namespace/pod peers,
 * networks around pod IPs, port numbers, ranges and named ports.
 */
import fc from "fast-check";
import type {
  AdminNetworkPolicy,
  AdminNetworkPolicyEgressPeer,
  AdminNetworkPolicyPort,
  AdminNetworkPolicySubject,
  BaselineAdminNetworkPolicy,
} from "../../model/kinds.js";
import { NAMESPACE_LABELS, POD_LABELS, policyLabelSelector } from "./policyLabelSelector.js";

export interface AdminNetworkPolicyConstraints {
  readonly index?: number;
  /** Fixed priority; default 0..3 (so ties happen). */
  readonly priority?: number;
}

const nsSel = policyLabelSelector(NAMESPACE_LABELS);
const podSel = policyLabelSelector(POD_LABELS);

export const adminSubject: fc.Arbitrary<AdminNetworkPolicySubject> = fc.oneof(
  nsSel.map((namespaces) => ({ namespaces })),
  fc.record({ namespaceSelector: nsSel, podSelector: podSel }).map((pods) => ({ pods })),
);

const podPeer: fc.Arbitrary<AdminNetworkPolicyEgressPeer> = fc.oneof(
  nsSel.map((namespaces) => ({ namespaces })),
  fc.record({ namespaceSelector: nsSel, podSelector: podSel }).map((pods) => ({ pods })),
);

export const adminEgressPeer: fc.Arbitrary<AdminNetworkPolicyEgressPeer> = fc.oneof(
  { weight: 4, arbitrary: podPeer },
  {
    weight: 1,
    arbitrary: fc
      .subarray(["10.0.1.0/24", "10.0.2.2/32", "0.0.0.0/0", "fd00::/64"], { minLength: 1 })
      .map((networks) => ({ networks })),
  },
);

export const adminPort: fc.Arbitrary<AdminNetworkPolicyPort> = fc.oneof(
  fc
    .record({ protocol: fc.constantFrom("TCP", "UDP", "SCTP"), port: fc.constantFrom(80, 81) })
    .map((portNumber) => ({ portNumber })),
  fc
    .record({
      protocol: fc.constantFrom("TCP", "UDP", "SCTP"),
      start: fc.constantFrom(79, 80, 81),
      span: fc.constantFrom(0, 1, 5),
    })
    .map(({ protocol, start, span }) => ({ portRange: { protocol, start, end: start + span } })),
  fc.constantFrom("serve-80-tcp", "serve-81-udp", "nope").map((namedPort) => ({ namedPort })),
);

function adminRule<A extends string>(
  actions: readonly A[],
  peer: fc.Arbitrary<AdminNetworkPolicyEgressPeer>,
  index: number,
) {
  return fc.record(
    {
      name: fc.constant(`r${index}`),
      action: fc.constantFrom(...actions),
      peers: fc.array(peer, { minLength: 1, maxLength: 2 }),
      ports: fc.array(adminPort, { minLength: 1, maxLength: 2 }),
    },
    { requiredKeys: ["name", "action", "peers"] },
  );
}

function rules<A extends string>(
  actions: readonly A[],
  peer: fc.Arbitrary<AdminNetworkPolicyEgressPeer>,
) {
  return fc
    .array(adminRule(actions, peer, 0), { maxLength: 3 })
    .map((rs) => rs.map((r, i) => ({ ...r, name: `r${i}` })));
}

export function adminNetworkPolicy(
  c: AdminNetworkPolicyConstraints = {},
): fc.Arbitrary<AdminNetworkPolicy> {
  const actions = ["Allow", "Deny", "Pass"] as const;
  return fc
    .record({
      priority: c.priority !== undefined ? fc.constant(c.priority) : fc.integer({ min: 0, max: 3 }),
      subject: adminSubject,
      ingress: rules(actions, podPeer),
      egress: rules(actions, adminEgressPeer),
    })
    .map((s) => ({
      apiVersion: "policy.networking.k8s.io/v1alpha1",
      kind: "AdminNetworkPolicy",
      metadata: { name: `anp-${c.index ?? 0}` },
      spec: {
        priority: s.priority,
        subject: s.subject,
        ingress: s.ingress.map(({ peers, ...r }) => ({ ...r, from: peers })),
        egress: s.egress.map(({ peers, ...r }) => ({ ...r, to: peers })),
      },
    }));
}

export function baselineAdminNetworkPolicy(): fc.Arbitrary<BaselineAdminNetworkPolicy> {
  const actions = ["Allow", "Deny"] as const;
  return fc
    .record({
      subject: adminSubject,
      ingress: rules(actions, podPeer),
      egress: rules(actions, adminEgressPeer),
    })
    .map((s) => ({
      apiVersion: "policy.networking.k8s.io/v1alpha1",
      kind: "BaselineAdminNetworkPolicy",
      metadata: { name: "default" },
      spec: {
        subject: s.subject,
        ingress: s.ingress.map(({ peers, ...r }) => ({ ...r, from: peers })),
        egress: s.egress.map(({ peers, ...r }) => ({ ...r, to: peers })),
      },
    }));
}
