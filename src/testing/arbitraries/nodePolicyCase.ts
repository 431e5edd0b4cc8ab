/**
 * `nodePolicyCase({protocols})`: one node's pods (namespace `ns`, 2-4 pods on `node-a` in
 * 10.244.1.0/24, labels `app: a|b`), 1-2 ingress NetworkPolicies (selecting by `app` or all
 * pods; peers absent or by `app`; 1-2 ports of the given protocols around 5000, sometimes an
 * endPort range), and a probe between two different pods on a port at or next to the declared
 * ones. Built with the builders, so every case is API-valid; shrinks to fewer pods and policies.
 */
import fc from "fast-check";
import type { Probe } from "../../backends/backend.js";
import type { Cluster } from "../../model/cluster.js";
import type { NetworkPolicy } from "../../model/kinds.js";
import { cluster } from "../builders/cluster.js";
import { networkPolicy } from "../builders/network-policy.js";
import { pod } from "../builders/pod.js";

export type PolicyProtocol = "TCP" | "UDP" | "SCTP";

export interface NodePolicyCase {
  readonly cluster: Cluster;
  readonly probe: Probe;
  /** The probe's destination pod (`ns/name`) and its IP. */
  readonly target: { readonly name: string; readonly ip: string };
}

const app = fc.constantFrom("a", "b");

function policyArb(i: number, protocols: readonly PolicyProtocol[]): fc.Arbitrary<NetworkPolicy> {
  return fc
    .record({
      selects: fc.option(app, { nil: undefined }),
      peer: fc.option(app, { nil: undefined }),
      ports: fc.array(
        fc.record({
          protocol: fc.constantFrom(...protocols),
          port: fc.integer({ min: 5000, max: 5002 }),
          range: fc.integer({ min: 0, max: 2 }),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    })
    .map(({ selects, peer, ports }) =>
      networkPolicy(`ns/policy-${i}`, {
        podSelector: selects === undefined ? {} : { matchLabels: { app: selects } },
        policyTypes: ["Ingress"],
        ingress: [
          {
            ...(peer === undefined
              ? {}
              : { from: [{ podSelector: { matchLabels: { app: peer } } }] }),
            ports: ports.map((p) => ({
              protocol: p.protocol,
              port: p.port,
              ...(p.range > 0 ? { endPort: p.port + p.range } : {}),
            })),
          },
        ],
      }),
    );
}

export function nodePolicyCase(
  options: { readonly protocols?: readonly PolicyProtocol[] } = {},
): fc.Arbitrary<NodePolicyCase> {
  const protocols = options.protocols ?? ["TCP", "UDP", "SCTP"];
  return fc
    .record({
      labels: fc.array(app, { minLength: 2, maxLength: 4 }),
      policies: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }),
      from: fc.nat(),
      to: fc.nat(),
      protocol: fc.constantFrom("tcp", "udp", "sctp"),
      port: fc.integer({ min: 4999, max: 5005 }),
    })
    .chain((r) =>
      fc.tuple(...r.policies.map((_, i) => policyArb(i, protocols))).map((policies) => {
        const pods = r.labels.map((label, i) => ({
          name: `ns/p${i}`,
          ip: `10.244.1.${10 + i}`,
          label,
        }));
        const from = pods[r.from % pods.length]!;
        const others = pods.filter((p) => p !== from);
        const to = others[r.to % others.length]!;
        const probe: Probe = { protocol: r.protocol, from: from.name, to: to.ip, port: r.port };
        const text = (): string =>
          [
            ...pods.map((p) => `pod ${p.name} ${p.ip} app=${p.label}`),
            ...policies.map((p) => `NetworkPolicy ${JSON.stringify(p.spec)}`),
            `probe ${probe.protocol.toUpperCase()} ${probe.from} → ${probe.to}:${probe.port}`,
          ].join("; ");
        return {
          [fc.toStringMethod]: text,
          cluster: cluster(
            ...pods.map((p) => pod(p.name, { ip: p.ip, node: "node-a", labels: { app: p.label } })),
            ...policies,
          ),
          probe,
          target: { name: to.name, ip: to.ip },
        };
      }),
    );
}
