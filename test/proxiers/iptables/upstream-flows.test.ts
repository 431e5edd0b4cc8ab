/**
 * Packet-flow expectations of upstream tests (pkg/proxy/iptables/proxier_test.go at commit
 * 531be812…): TestLoadBalancer, TestNoEndpointsReject and TestInternalTrafficPolicy, traced with
 * upstream's test-tracer semantics (traceUpstreamStyle; spec §7.2) over the rendered node.
 */
import { describe, expect, test } from "@jest/globals";
import { traceUpstreamStyle } from "../../../src/netfilter/trace/upstream-style.js";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import { slice, svc, yamlCluster } from "./feature-helpers.js";
import { FAKE_CONFIG, FAKE_LOCAL_IPS, FAKE_NODE } from "./helpers.js";

type Flow = readonly [
  name: string,
  src: string,
  dst: string,
  port: number,
  output: string,
  masq: boolean,
];

function runFlows(yaml: string, flows: readonly Flow[]): void {
  const { ruleSet } = renderIptables(yamlCluster(yaml), {
    node: FAKE_NODE,
    proxyConfig: FAKE_CONFIG,
  });
  test.each(flows)("%s", (_name, sourceIP, destIP, destPort, output, masq) => {
    const r = traceUpstreamStyle(ruleSet, FAKE_LOCAL_IPS, {
      protocol: "",
      sourceIP,
      destIP,
      destPort,
    });
    expect({ output: r.output, masq: r.masq }).toEqual({ output, masq });
  });
}

const EXT = "203.0.113.2";
const BLOCKED = "203.0.113.130";
const NODE = "192.168.0.2";

describe("TestLoadBalancer", () => {
  runFlows(
    svc(
      "svc1",
      'type: LoadBalancer\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]\nloadBalancerSourceRanges: ["192.168.0.0/24", " 203.0.113.0/25"]',
      "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}, {ip: 5.6.7.8}]}}",
    ) + slice("svc1", "[{addresses: [10.180.0.1]}]"),
    [
      ["pod to cluster IP", "10.0.0.2", "172.30.0.41", 80, "10.180.0.1:80", false],
      ["external to nodePort", EXT, NODE, 3001, "10.180.0.1:80", true],
      ["nodePort bypasses LoadBalancerSourceRanges", BLOCKED, NODE, 3001, "10.180.0.1:80", true],
      ["accepted external to LB1", EXT, "1.2.3.4", 80, "10.180.0.1:80", true],
      ["accepted external to LB2", EXT, "5.6.7.8", 80, "10.180.0.1:80", true],
      ["blocked external to LB1", BLOCKED, "1.2.3.4", 80, "DROP", false],
      ["blocked external to LB2", BLOCKED, "5.6.7.8", 80, "DROP", false],
      [
        "pod to LB1 (blocked by LoadBalancerSourceRanges)",
        "10.0.0.2",
        "1.2.3.4",
        80,
        "DROP",
        false,
      ],
      [
        "pod to LB2 (blocked by LoadBalancerSourceRanges)",
        "10.0.0.2",
        "5.6.7.8",
        80,
        "DROP",
        false,
      ],
      [
        "node to LB1 (allowed by LoadBalancerSourceRanges)",
        NODE,
        "1.2.3.4",
        80,
        "10.180.0.1:80",
        true,
      ],
      [
        "node to LB2 (allowed by LoadBalancerSourceRanges)",
        NODE,
        "5.6.7.8",
        80,
        "10.180.0.1:80",
        true,
      ],
      [
        "same node to LB1, SNATted to LB1 (implicitly allowed)",
        "1.2.3.4",
        "1.2.3.4",
        80,
        "10.180.0.1:80",
        true,
      ],
      [
        "same node to LB2, SNATted to LB2 (implicitly allowed)",
        "5.6.7.8",
        "5.6.7.8",
        80,
        "10.180.0.1:80",
        true,
      ],
    ],
  );
});

describe("TestNoEndpointsReject", () => {
  runFlows(
    svc(
      "svc1",
      "type: LoadBalancer\nclusterIP: 172.30.0.41\nexternalIPs: [192.168.99.11]\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
      "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}",
    ),
    [
      ["pod to cluster IP with no endpoints", "10.0.0.2", "172.30.0.41", 80, "REJECT", false],
      ["external to external IP with no endpoints", EXT, "192.168.99.11", 80, "REJECT", false],
      ["pod to NodePort with no endpoints", "10.0.0.2", NODE, 3001, "REJECT", false],
      ["external to NodePort with no endpoints", EXT, NODE, 3001, "REJECT", false],
      ["pod to LoadBalancer IP with no endpoints", "10.0.0.2", "1.2.3.4", 80, "REJECT", false],
      ["external to LoadBalancer IP with no endpoints", EXT, "1.2.3.4", 80, "REJECT", false],
    ],
  );
});

describe("TestInternalTrafficPolicy", () => {
  const yaml = (itp: string, nodes: readonly string[]): string =>
    svc(
      "svc1",
      `internalTrafficPolicy: ${itp}\nclusterIP: 172.30.1.1\nports: [{port: 80, protocol: TCP}]`,
    ) +
    slice(
      "svc1",
      `[${nodes.map((n, i) => `{addresses: [10.0.1.${i + 1}], conditions: {ready: true}, nodeName: ${n}}`).join(", ")}]`,
      '[{name: "", port: 80, protocol: TCP}]',
    );
  describe("cluster", () => {
    runFlows(yaml("Cluster", ["test-node", "node1", "node2"]), [
      [
        "pod to ClusterIP hits all endpoints",
        "10.0.0.2",
        "172.30.1.1",
        80,
        "10.0.1.1:80, 10.0.1.2:80, 10.0.1.3:80",
        false,
      ],
    ]);
  });
  describe("local, one local endpoint", () => {
    runFlows(yaml("Local", ["test-node", "node1", "node2"]), [
      [
        "pod to ClusterIP hits only local endpoint",
        "10.0.0.2",
        "172.30.1.1",
        80,
        "10.0.1.1:80",
        false,
      ],
    ]);
  });
  describe("local, multiple local endpoints", () => {
    runFlows(yaml("Local", ["test-node", "test-node", "node2"]), [
      [
        "pod to ClusterIP hits all local endpoints",
        "10.0.0.2",
        "172.30.1.1",
        80,
        "10.0.1.1:80, 10.0.1.2:80",
        false,
      ],
    ]);
  });
  describe("local, no local endpoints", () => {
    runFlows(yaml("Local", ["node0", "node1", "node2"]), [
      ["no endpoints", "10.0.0.2", "172.30.1.1", 80, "DROP", false],
    ]);
  });
  describe("endpoints deleted", () => {
    runFlows(
      svc(
        "svc1",
        "internalTrafficPolicy: Local\nclusterIP: 172.30.1.1\nports: [{port: 80, protocol: TCP}]",
      ),
      [["endpoints deleted", "10.0.0.2", "172.30.1.1", 80, "REJECT", false]],
    );
  });
});
