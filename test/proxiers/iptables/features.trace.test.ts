/**
 * Every feature of features.test.ts, traced with the real tracer (kernel semantics: hooks,
 * conntrack state, marks, MASQUERADE in POSTROUTING, exact probabilities) through the rendered
 * node tables. Expected outcomes follow the behaviour the spec describes (§5) and upstream's
 * packet-flow tests (TestLoadBalancer, TestNoEndpointsReject, TestExternalTrafficPolicyLocal).
 */
import { describe, expect, test } from "@jest/globals";
import type { PacketSpec } from "../../../src/netfilter/trace/result.js";
import { slice, svc, traceOutcomes, type FeatureOptions, type Outcome } from "./feature-helpers.js";

const dnat = (destination: string, probability = 1, masquerade = false): Outcome => ({
  verdict: "DNAT",
  destination,
  masquerade,
  probability,
});
const verdict = (v: string): Outcome => ({ verdict: v, masquerade: false, probability: 1 });
const tcp = (src: string, dst: string, dport: number): PacketSpec => ({
  proto: "tcp",
  src,
  dst,
  dport,
});

interface Case {
  readonly name: string;
  readonly packet: PacketSpec;
  readonly expected: readonly Outcome[];
  readonly options?: FeatureOptions;
}

function run(yaml: string, cases: readonly Case[]): void {
  test.each(cases)("$name", (c) => {
    expect(traceOutcomes(yaml, c.options ?? {}, c.packet)).toEqual(c.expected);
  });
}

describe("ClusterIP, TCP/UDP/SCTP on one port number", () => {
  const yaml =
    svc(
      "svc1",
      "clusterIP: 172.30.0.41\nports: [{name: tcp, port: 53, protocol: TCP}, {name: udp, port: 53, protocol: UDP}, {name: sctp, port: 53, protocol: SCTP}]",
    ) +
    slice(
      "svc1",
      "[{addresses: [10.180.0.1], nodeName: test-node}, {addresses: [10.180.0.2]}, {addresses: [10.180.0.3]}]",
      "[{name: tcp, port: 5353, protocol: TCP}, {name: udp, port: 53, protocol: UDP}, {name: sctp, port: 9053, protocol: SCTP}]",
    );
  const third = 0.333333;
  run(yaml, [
    {
      name: "tcp: every endpoint with 1/3",
      packet: tcp("10.0.0.2", "172.30.0.41", 53),
      expected: [
        dnat("10.180.0.1:5353", third),
        dnat("10.180.0.2:5353", third),
        dnat("10.180.0.3:5353", third),
      ],
    },
    {
      name: "sctp reaches the sctp endpoints only",
      packet: { proto: "sctp", src: "10.0.0.2", dst: "172.30.0.41", dport: 53 },
      expected: [
        dnat("10.180.0.1:9053", third),
        dnat("10.180.0.2:9053", third),
        dnat("10.180.0.3:9053", third),
      ],
    },
    {
      name: "udp reaches the udp endpoints only",
      packet: { proto: "udp", src: "10.0.0.2", dst: "172.30.0.41", dport: 53 },
      expected: [
        dnat("10.180.0.1:53", third),
        dnat("10.180.0.2:53", third),
        dnat("10.180.0.3:53", third),
      ],
    },
    {
      name: "host traffic is masqueraded (source outside the cluster CIDR)",
      packet: tcp("192.168.0.2", "172.30.0.41", 53),
      expected: [
        dnat("10.180.0.1:5353", third, true),
        dnat("10.180.0.2:5353", third, true),
        dnat("10.180.0.3:5353", third, true),
      ],
    },
    {
      name: "masqueradeAll masquerades pods too",
      packet: tcp("10.0.0.2", "172.30.0.41", 53),
      options: { iptables: { masqueradeAll: true } },
      expected: [
        dnat("10.180.0.1:5353", third, true),
        dnat("10.180.0.2:5353", third, true),
        dnat("10.180.0.3:5353", third, true),
      ],
    },
    {
      name: "another port is untouched",
      packet: tcp("10.0.0.2", "172.30.0.41", 80),
      expected: [verdict("NONE")],
    },
  ]);
});

describe("no endpoints: REJECT everywhere (TestNoEndpointsReject)", () => {
  const yaml = svc(
    "svc1",
    "type: LoadBalancer\nclusterIP: 172.30.0.41\nexternalIPs: [192.168.99.11]\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
    "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}",
  );
  run(yaml, [
    {
      name: "pod to cluster IP",
      packet: tcp("10.0.0.2", "172.30.0.41", 80),
      expected: [verdict("REJECT")],
    },
    {
      name: "external to external IP",
      packet: tcp("203.0.113.2", "192.168.99.11", 80),
      expected: [verdict("REJECT")],
    },
    {
      name: "external to NodePort",
      packet: tcp("203.0.113.2", "192.168.0.2", 3001),
      expected: [verdict("REJECT")],
    },
    {
      name: "external to LB IP",
      packet: tcp("203.0.113.2", "1.2.3.4", 80),
      expected: [verdict("REJECT")],
    },
  ]);
});

describe("LoadBalancer with source ranges (TestLoadBalancer)", () => {
  const yaml =
    svc(
      "svc1",
      'type: LoadBalancer\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]\nloadBalancerSourceRanges: ["192.168.0.0/24", " 203.0.113.0/25"]',
      "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}, {ip: 5.6.7.8}]}}",
    ) + slice("svc1", "[{addresses: [10.180.0.1]}]");
  run(yaml, [
    {
      name: "pod to cluster IP",
      packet: tcp("10.0.0.2", "172.30.0.41", 80),
      expected: [dnat("10.180.0.1:80")],
    },
    {
      name: "external to nodePort",
      packet: tcp("203.0.113.2", "192.168.0.2", 3001),
      expected: [dnat("10.180.0.1:80", 1, true)],
    },
    {
      name: "nodePort bypasses LoadBalancerSourceRanges",
      packet: tcp("203.0.113.130", "192.168.0.2", 3001),
      expected: [dnat("10.180.0.1:80", 1, true)],
    },
    {
      name: "accepted external to LB1",
      packet: tcp("203.0.113.2", "1.2.3.4", 80),
      expected: [dnat("10.180.0.1:80", 1, true)],
    },
    {
      name: "blocked external to LB2",
      packet: tcp("203.0.113.130", "5.6.7.8", 80),
      expected: [verdict("DROP")],
    },
    {
      name: "pod to LB1 (blocked by source ranges)",
      packet: tcp("10.0.0.2", "1.2.3.4", 80),
      expected: [verdict("DROP")],
    },
    {
      name: "node to LB2 (allowed)",
      packet: tcp("192.168.0.2", "5.6.7.8", 80),
      expected: [dnat("10.180.0.1:80", 1, true)],
    },
  ]);
});

describe("externalIPs, session affinity", () => {
  const yaml =
    svc(
      "svc1",
      "clusterIP: 172.30.0.41\nexternalIPs: [192.168.99.33]\nsessionAffinity: ClientIP\nsessionAffinityConfig: {clientIP: {timeoutSeconds: 300}}\nports: [{name: p80, port: 80, protocol: TCP}]",
    ) + slice("svc1", "[{addresses: [10.180.0.1]}, {addresses: [10.180.0.2]}]");
  run(yaml, [
    {
      name: "external to external IP is masqueraded; first packet is balanced",
      packet: tcp("203.0.113.2", "192.168.99.33", 80),
      expected: [dnat("10.180.0.1:80", 0.5, true), dnat("10.180.0.2:80", 0.5, true)],
    },
    {
      name: "pod to cluster IP",
      packet: tcp("10.0.0.2", "172.30.0.41", 80),
      expected: [dnat("10.180.0.1:80", 0.5), dnat("10.180.0.2:80", 0.5)],
    },
  ]);
});

describe("externalTrafficPolicy Local (TestExternalTrafficPolicyLocal)", () => {
  const yaml =
    svc(
      "svc1",
      "type: LoadBalancer\nexternalTrafficPolicy: Local\nhealthCheckNodePort: 30000\nclusterIP: 172.30.0.41\nexternalIPs: [192.168.99.11]\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
      "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}",
    ) +
    slice(
      "svc1",
      "[{addresses: [10.180.0.1], nodeName: test-node}, {addresses: [10.180.2.1], nodeName: host2}]",
    );
  run(yaml, [
    {
      name: "pod to cluster IP hits both endpoints",
      packet: tcp("10.0.0.2", "172.30.0.41", 80),
      expected: [dnat("10.180.0.1:80", 0.5), dnat("10.180.2.1:80", 0.5)],
    },
    {
      name: "external to LB IP hits only the local endpoint, unmasqueraded",
      packet: tcp("203.0.113.2", "1.2.3.4", 80),
      expected: [dnat("10.180.0.1:80")],
    },
    {
      name: "external to NodePort likewise",
      packet: tcp("203.0.113.2", "192.168.0.2", 3001),
      expected: [dnat("10.180.0.1:80")],
    },
    {
      name: "pod to LB IP is short-circuited to all endpoints",
      packet: tcp("10.0.0.2", "1.2.3.4", 80),
      expected: [dnat("10.180.0.1:80", 0.5), dnat("10.180.2.1:80", 0.5)],
    },
    {
      name: "node to external IP is masqueraded and short-circuited",
      packet: tcp("192.168.0.2", "192.168.99.11", 80),
      expected: [dnat("10.180.0.1:80", 0.5, true), dnat("10.180.2.1:80", 0.5, true)],
    },
    {
      name: "health check node port is accepted",
      packet: tcp("203.0.113.2", "192.168.0.2", 30000),
      expected: [verdict("ACCEPT")],
    },
  ]);
});

describe("externalTrafficPolicy Local without local endpoints", () => {
  const yaml =
    svc(
      "svc1",
      "type: NodePort\nexternalTrafficPolicy: Local\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
    ) + slice("svc1", "[{addresses: [10.180.2.1], nodeName: host2}]");
  run(yaml, [
    {
      name: "external NodePort traffic is dropped",
      packet: tcp("203.0.113.2", "192.168.0.2", 3001),
      expected: [verdict("DROP")],
    },
    {
      name: "pods still reach the service",
      packet: tcp("10.0.0.2", "172.30.0.41", 80),
      expected: [dnat("10.180.2.1:80")],
    },
  ]);
});

describe("internalTrafficPolicy Local", () => {
  const yaml = (node: string): string =>
    svc(
      "svc1",
      "internalTrafficPolicy: Local\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]",
    ) +
    slice(
      "svc1",
      `[{addresses: [10.180.0.1], nodeName: ${node}}, {addresses: [10.180.2.1], nodeName: host2}]`,
    );
  test("only the local endpoint", () => {
    expect(traceOutcomes(yaml("test-node"), {}, tcp("10.0.0.2", "172.30.0.41", 80))).toEqual([
      dnat("10.180.0.1:80"),
    ]);
  });
  test("no local endpoint: DROP", () => {
    expect(traceOutcomes(yaml("host3"), {}, tcp("10.0.0.2", "172.30.0.41", 80))).toEqual([
      verdict("DROP"),
    ]);
  });
});

describe("NodePort and nodePortAddresses", () => {
  const yaml =
    svc(
      "svc1",
      "type: NodePort\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
    ) + slice("svc1", "[{addresses: [10.180.0.1]}]");
  run(yaml, [
    {
      name: "node IP",
      packet: tcp("203.0.113.2", "192.168.0.2", 3001),
      expected: [dnat("10.180.0.1:80", 1, true)],
    },
    {
      name: "alternate node IP",
      packet: tcp("203.0.113.2", "192.168.1.2", 3001),
      expected: [dnat("10.180.0.1:80", 1, true)],
    },
    {
      name: "alternate node IP outside nodePortAddresses",
      packet: tcp("203.0.113.2", "192.168.1.2", 3001),
      options: { config: { nodePortAddresses: ["192.168.0.0/24"] } },
      expected: [verdict("NONE")],
    },
    {
      name: "localhost NodePort (IPv4, localhostNodePorts)",
      packet: tcp("127.0.0.1", "127.0.0.1", 3001),
      expected: [dnat("10.180.0.1:80", 1, true)],
    },
    {
      name: "localhost NodePort disabled",
      packet: tcp("127.0.0.1", "127.0.0.1", 3001),
      options: { iptables: { localhostNodePorts: false } },
      expected: [verdict("NONE")],
    },
  ]);
});

describe("IPv6", () => {
  const yaml =
    svc(
      "svc1",
      "type: NodePort\nipFamilies: [IPv6]\nclusterIP: 'fd00:172:30::41'\nclusterIPs: ['fd00:172:30::41']\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
    ) +
    slice(
      "svc1",
      "[{addresses: ['fd00:10:180::1']}, {addresses: ['fd00:10:180::2:1']}]",
      "[{name: p80, port: 80, protocol: TCP}]",
      "IPv6",
    );
  const v6: FeatureOptions = { node: { ipFamilies: ["IPv6"] } };
  run(yaml, [
    {
      name: "pod to cluster IP",
      packet: tcp("fd00:10::2", "fd00:172:30::41", 80),
      options: v6,
      expected: [dnat("[fd00:10:180::1]:80", 0.5), dnat("[fd00:10:180::2:1]:80", 0.5)],
    },
    {
      name: "external to NodePort",
      packet: tcp("2600:5200::1", "2001:db8::1", 3001),
      options: v6,
      expected: [dnat("[fd00:10:180::1]:80", 0.5, true), dnat("[fd00:10:180::2:1]:80", 0.5, true)],
    },
    {
      name: "localhost NodePort is not served",
      packet: tcp("::1", "::1", 3001),
      options: v6,
      expected: [verdict("NONE")],
    },
  ]);
});
