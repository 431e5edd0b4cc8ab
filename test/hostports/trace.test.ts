/**
 * Hostport rules traced together with kube-proxy's chains (the KUBE-MARK-MASQ / KUBE-POSTROUTING
 * rules of spec kube-proxy-iptables.md §"fixed rules", mark 0x4000): a packet to a host port
 * reaches the pod that owns it, for TCP, UDP and SCTP, from outside, from the node and from the
 * pod itself, and never with another protocol.
 */
import { describe, expect } from "@jest/globals";
import { fc, test } from "@fast-check/jest";
import {
  hostportRulesForNode,
  podPortMappings,
  withHostportRules,
  type HostportImpl,
  type NodeHostports,
  type PortMapping,
} from "../../src/hostports/index.js";
import { makeCluster } from "../../src/model/cluster.js";
import type { NodeEnvironment } from "../../src/model/node-environment.js";
import { nodeEnv } from "../../src/testing/builders/node-env.js";
import type { Pod } from "../../src/model/kinds.js";
import { parseIptables } from "../../src/netfilter/parse/iptables.js";
import { buildDataplane, trace, type NodeDataplane } from "../../src/netfilter/trace/index.js";
import { hostPortPod } from "../../src/testing/arbitraries/hostPortPod.js";

const KUBE_PROXY_NAT = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-POSTROUTING - [0:0]
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
COMMIT
`;
const NODE_IP = "192.168.0.2";
const CLIENT = "192.168.0.10";
const interfaces = [
  { name: "lo", addresses: ["127.0.0.1/8"] },
  { name: "eth0", addresses: ["192.168.0.2/24"] },
  { name: "cbr0", addresses: ["10.244.1.1/24"] },
];
const node: NodeEnvironment = nodeEnv({ name: "node-a", ips: [NODE_IP], interfaces });
const nodeObject = {
  metadata: { name: "node-a" },
  spec: { podCIDR: "10.244.1.0/24", podCIDRs: ["10.244.1.0/24"] },
};

function dataplaneFor(result: NodeHostports): NodeDataplane {
  const kubeProxy = parseIptables(KUBE_PROXY_NAT, { file: "kube-proxy", family: "IPv4" });
  return buildDataplane({ ruleSets: withHostportRules([kubeProxy], result), interfaces });
}

interface Programmed {
  readonly pod: Pod;
  readonly ip: string;
  readonly mapping: PortMapping;
}

/** Which pod mapping a (proto, dst, port) packet reaches, by the order rules are evaluated. */
function expectedWinner(
  programmed: readonly (readonly Programmed[])[],
  impl: HostportImpl,
  proto: string,
  dst: string,
  port: number,
): Programmed | undefined {
  // kubenet: newest pod first, and within a pod its last mapping first (each jump is -I).
  // portmap: oldest container first, mappings in order (appended jumps and rules).
  const order =
    impl === "kubenet" ? [...programmed].reverse().map((p) => [...p].reverse()) : programmed;
  for (const pod of order)
    for (const p of pod) {
      const m = p.mapping;
      const hostIP = m.hostIP === undefined || m.hostIP === "0.0.0.0" ? undefined : m.hostIP;
      if (
        m.protocol.toLowerCase() === proto &&
        m.hostPort === port &&
        (hostIP === undefined || hostIP === dst)
      )
        return p;
    }
  return undefined;
}

const podsArb = fc
  .tuple(
    ...[0, 1, 2, 3].map((index) =>
      hostPortPod({
        index,
        nodeName: "node-a",
        hostIPs: ["127.0.0.1", NODE_IP],
        hostPorts: [8080, 9000],
      }),
    ),
  )
  .chain((pods) => fc.subarray(pods, { minLength: 1 }));

describe.each(["kubenet", "portmap"] as const)("trace through %s hostport rules", (impl) => {
  test.prop([podsArb], { numRuns: 40 })(
    "every host port reaches the pod that owns it, only with its own protocol",
    (pods) => {
      const cluster = makeCluster({ pods, nodes: [nodeObject] });
      const result = hostportRulesForNode(cluster, node, { impl });
      const dp = dataplaneFor(result);
      const ok = result.pods.filter((p) => p.error === undefined);
      const programmed = ok.map((o) => {
        const pod = pods.find((p) => p.metadata?.name === o.name)!;
        return podPortMappings(pod).map((mapping) => ({ pod, ip: o.podIP, mapping }));
      });
      for (const proto of ["tcp", "udp", "sctp"] as const)
        for (const port of [8080, 9000])
          for (const dst of [NODE_IP, "127.0.0.1"]) {
            const winner = expectedWinner(programmed, impl, proto, dst, port);
            const sources =
              dst === "127.0.0.1"
                ? [{ src: "127.0.0.1", from: "node" }]
                : [
                    { src: CLIENT, from: "outside" },
                    { src: NODE_IP, from: "node" },
                    ...ok.map((o) => ({ src: o.podIP, from: `pod ${o.name}` })),
                  ];
            for (const { src, from } of sources) {
              const r = trace(dp, { proto, src, dst, dport: port });
              const got = r.outcomes.map((o) => `${o.verdict} ${o.destination ?? "-"}`);
              const want =
                winner === undefined
                  ? undefined
                  : `DNAT ${winner.ip}:${winner.mapping.containerPort}`;
              const label = `${proto} ${from} ${src} -> ${dst}:${port}`;
              if (want === undefined)
                expect([label, got.some((g) => g.startsWith("DNAT"))]).toEqual([label, false]);
              else expect([label, got]).toEqual([label, [want]]);
              // A pod reaching itself through its host port is masqueraded (hairpin).
              if (winner !== undefined && src === winner.ip)
                expect([label, r.outcomes[0]?.masquerade]).toEqual([label, true]);
              // Traffic from outside keeps its source.
              if (winner !== undefined && from === "outside")
                expect([label, r.outcomes[0]?.masquerade]).toEqual([label, false]);
            }
          }
    },
  );
});

describe("SCTP hostPort worked example", () => {
  test.each(["kubenet", "portmap"] as const)(
    "%s: SCTP to nodeIP:5060 reaches the pod; TCP does not",
    (impl) => {
      const pod: Pod = {
        metadata: { name: "sctp-server", namespace: "default", uid: "u1" },
        spec: {
          nodeName: "node-a",
          containers: [
            { name: "s", ports: [{ containerPort: 5060, hostPort: 5060, protocol: "SCTP" }] },
          ],
        },
        status: { podIP: "10.244.1.5", podIPs: [{ ip: "10.244.1.5" }] },
      };
      const result = hostportRulesForNode(makeCluster({ pods: [pod], nodes: [nodeObject] }), node, {
        impl,
      });
      const dp = dataplaneFor(result);
      const sctp = trace(dp, { proto: "sctp", src: CLIENT, dst: NODE_IP, dport: 5060 });
      expect(sctp.outcomes.map((o) => [o.verdict, o.destination, o.masquerade])).toEqual([
        ["DNAT", "10.244.1.5:5060", false],
      ]);
      const tcp = trace(dp, { proto: "tcp", src: CLIENT, dst: NODE_IP, dport: 5060 });
      expect(tcp.outcomes.every((o) => o.verdict !== "DNAT")).toBe(true);
      const hairpin = trace(dp, { proto: "sctp", src: "10.244.1.5", dst: NODE_IP, dport: 5060 });
      expect(hairpin.outcomes.map((o) => [o.destination, o.masquerade])).toEqual([
        ["10.244.1.5:5060", true],
      ]);
    },
  );
});

describe("IPv6", () => {
  const v6Interfaces = [
    { name: "lo", addresses: ["::1/128"] },
    { name: "eth0", addresses: ["2001:db8::2/64"] },
    { name: "cbr0", addresses: ["fd00:10:244:1::1/64"] },
  ];
  const v6Node: NodeEnvironment = nodeEnv({
    name: "node-a",
    ips: ["2001:db8::2"],
    interfaces: v6Interfaces,
  });
  const pod: Pod = {
    metadata: { name: "v6", namespace: "default", uid: "u6" },
    spec: {
      nodeName: "node-a",
      containers: [
        {
          name: "c",
          ports: [
            { containerPort: 80, hostPort: 8080, protocol: "TCP" },
            { containerPort: 5060, hostPort: 5060, protocol: "SCTP" },
          ],
        },
      ],
    },
    status: { podIP: "fd00:10:244:1::5", podIPs: [{ ip: "fd00:10:244:1::5" }] },
  };
  const v6NodeObject = { metadata: { name: "node-a" }, spec: { podCIDRs: ["fd00:10:244:1::/64"] } };
  const kubeProxyV6 = parseIptables(KUBE_PROXY_NAT, { file: "kube-proxy", family: "IPv6" });

  test.each(["kubenet", "portmap"] as const)(
    "%s: TCP and SCTP host ports reach the pod",
    (impl) => {
      const result = hostportRulesForNode(
        makeCluster({ pods: [pod], nodes: [v6NodeObject] }),
        v6Node,
        {
          impl,
        },
      );
      const dp = buildDataplane({
        ruleSets: withHostportRules([kubeProxyV6], result),
        interfaces: v6Interfaces,
      });
      const outcome = (proto: "tcp" | "sctp" | "udp", src: string, dport: number) =>
        trace(dp, { proto, src, dst: "2001:db8::2", dport }).outcomes.map((o) => [
          o.destination,
          o.masquerade,
        ]);
      expect(outcome("tcp", "2001:db8::10", 8080)).toEqual([["[fd00:10:244:1::5]:80", false]]);
      expect(outcome("sctp", "2001:db8::10", 5060)).toEqual([["[fd00:10:244:1::5]:5060", false]]);
      expect(outcome("sctp", "fd00:10:244:1::5", 5060)).toEqual([
        ["[fd00:10:244:1::5]:5060", true],
      ]);
      expect(outcome("udp", "2001:db8::10", 8080)).toEqual([[undefined, false]]);
    },
  );
});
