/**
 * `networkPolicy(constraints)`: a NetworkPolicy as users write it (not defaulted: policyTypes and
 * protocols are often missing), over the vocabulary of `policyCluster`, biased to the classic
 * traps: `from: []` vs missing, `ingress: [{}]`, `egress: []` without policyTypes, combined
 * namespace+pod peers, ipBlocks around pod IPs with except, named ports on the wrong protocol,
 * endPort ranges, SCTP.
 */
import fc from "fast-check";
import type { NetworkPolicy } from "../../model/kinds.js";
import type {
  NetworkPolicyEgressRule,
  NetworkPolicyIngressRule,
  NetworkPolicyPeer,
  NetworkPolicyPort,
} from "kubernetes-types/networking/v1.js";
import { NAMESPACE_LABELS, POD_LABELS, policyLabelSelector } from "./policyLabelSelector.js";

export interface NetworkPolicyConstraints {
  readonly namespace: string;
  /** Distinguishes the name; default 0. */
  readonly index?: number;
  /** Restrict port protocols (e.g. only SCTP); default all three plus "missing" (TCP). */
  readonly protocols?: readonly ("TCP" | "UDP" | "SCTP")[];
}

const namespaceNameSelector = fc
  .constantFrom("x", "y", "z")
  .map((n) => ({ matchLabels: { "kubernetes.io/metadata.name": n } }));

export const networkPolicyPeer: fc.Arbitrary<NetworkPolicyPeer> = fc.oneof(
  { weight: 3, arbitrary: policyLabelSelector(POD_LABELS).map((podSelector) => ({ podSelector })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(policyLabelSelector(NAMESPACE_LABELS), namespaceNameSelector)
      .map((namespaceSelector) => ({ namespaceSelector })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        policyLabelSelector(POD_LABELS),
        fc.oneof(policyLabelSelector(NAMESPACE_LABELS), namespaceNameSelector),
      )
      .map(([podSelector, namespaceSelector]) => ({ podSelector, namespaceSelector })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.record({
          cidr: fc.constant("10.0.0.0/16"),
          except: fc.subarray(["10.0.1.0/24", "10.0.2.1/32", "10.0.3.0/25"]),
        }),
        fc.record({
          cidr: fc.constantFrom("10.0.1.0/24", "10.0.2.0/24", "10.0.1.2/32", "0.0.0.0/0"),
        }),
        fc.record({ cidr: fc.constantFrom("fd00::/64", "fd00::1:0/112", "::/0") }),
      )
      .map((ipBlock) => ({ ipBlock })),
  },
);

export function networkPolicyPort(
  protocols?: readonly ("TCP" | "UDP" | "SCTP")[],
): fc.Arbitrary<NetworkPolicyPort> {
  const protocol =
    protocols === undefined
      ? fc.option(fc.constantFrom("TCP", "UDP", "SCTP"), { nil: undefined })
      : fc.constantFrom(...protocols);
  return fc
    .record({
      protocol,
      port: fc.option(
        fc.oneof(
          fc.constantFrom(80, 81, 82),
          fc.constantFrom("serve-80-tcp", "serve-81-udp", "serve-80-sctp", "http", "nope"),
        ),
        { nil: undefined },
      ),
      span: fc.constantFrom(undefined, 0, 1),
    })
    .map(({ protocol, port, span }) => {
      const out: NetworkPolicyPort = {};
      if (protocol !== undefined) out.protocol = protocol;
      if (port !== undefined) out.port = port;
      if (typeof port === "number" && span !== undefined) out.endPort = port + span;
      return out;
    });
}

function rule(
  protocols?: readonly ("TCP" | "UDP" | "SCTP")[],
): fc.Arbitrary<{ peers?: NetworkPolicyPeer[]; ports?: NetworkPolicyPort[] }> {
  return fc.record(
    {
      peers: fc.oneof(
        fc.constant<NetworkPolicyPeer[]>([]),
        fc.array(networkPolicyPeer, { minLength: 1, maxLength: 2 }),
      ),
      ports: fc.oneof(
        fc.constant<NetworkPolicyPort[]>([]),
        fc.array(networkPolicyPort(protocols), { minLength: 1, maxLength: 2 }),
      ),
    },
    { requiredKeys: [] },
  );
}

function ingressRule(
  protocols?: readonly ("TCP" | "UDP" | "SCTP")[],
): fc.Arbitrary<NetworkPolicyIngressRule> {
  return rule(protocols).map((r) => ({
    ...(r.peers !== undefined ? { from: r.peers } : {}),
    ...(r.ports !== undefined ? { ports: r.ports } : {}),
  }));
}
function egressRule(
  protocols?: readonly ("TCP" | "UDP" | "SCTP")[],
): fc.Arbitrary<NetworkPolicyEgressRule> {
  return rule(protocols).map((r) => ({
    ...(r.peers !== undefined ? { to: r.peers } : {}),
    ...(r.ports !== undefined ? { ports: r.ports } : {}),
  }));
}

export function networkPolicy(c: NetworkPolicyConstraints): fc.Arbitrary<NetworkPolicy> {
  return fc
    .record(
      {
        podSelector: policyLabelSelector(POD_LABELS),
        policyTypes: fc.constantFrom<("Ingress" | "Egress")[]>(
          [],
          ["Ingress"],
          ["Egress"],
          ["Ingress", "Egress"],
        ),
        ingress: fc.array(ingressRule(c.protocols), { maxLength: 2 }),
        egress: fc.array(egressRule(c.protocols), { maxLength: 2 }),
      },
      { requiredKeys: ["podSelector"] },
    )
    .map((spec) => ({
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: `np-${c.index ?? 0}`, namespace: c.namespace },
      spec,
    }));
}
