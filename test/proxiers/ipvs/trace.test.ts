/**
 * Tracing through the IPVS proxier's dataplane (buildNodeDataplane with mode: ipvs): IPVS at
 * LOCAL_IN / LOCAL_OUT, masquerade decided by the ipset rules, KUBE-IPVS-FILTER, source ranges,
 * and port unreachable from a virtual server without real servers.
 */
import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import { loadCluster, parseCluster } from "../../../src/model/index.js";
import { parseNodeEnvironment } from "../../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../../src/model/load-proxy-config.js";
import { ipsetTest, parseIpsetSave } from "../../../src/netfilter/ipset/index.js";
import { trace, type PacketSpec } from "../../../src/netfilter/trace/index.js";
import { parseIP } from "../../../src/net/index.js";
import { ACCEPTANCE_IPVS, FAKE_PROXY_CONFIG, NODE, renderYaml } from "./helpers.js";

function caseDataplane(name: string) {
  const dir = join(ACCEPTANCE_IPVS, name);
  return buildNodeDataplane(loadCluster(join(dir, "cluster.yaml"), { validation: "warn" }), {
    node: parseNodeEnvironment(readFileSync(join(dir, "node.yaml"), "utf8"), "node.yaml"),
    proxyConfig: parseProxyConfig(readFileSync(join(dir, "proxy.yaml"), "utf8"), "proxy.yaml"),
  });
}

const summary = (dp: ReturnType<typeof caseDataplane>, p: PacketSpec) =>
  trace(dp, p).outcomes.map((o) => ({
    verdict: o.verdict,
    destination: o.destination,
    masquerade: o.masquerade,
    probability: o.probability,
  }));

describe("tracing the acceptance cases in IPVS mode", () => {
  test("SCTP NodePort answers on every IPv4 node address, masqueraded by the hash:ip,port set", () => {
    const dp = caseDataplane("nodeport-sctp-multiple-node-ips");
    for (const ip of ["100.101.102.103", "100.101.102.104", "100.101.102.105"]) {
      const r = trace(dp, { proto: "sctp", src: "203.0.113.9", dst: ip, dport: 3001 });
      expect(r.outcomes.map((o) => [o.verdict, o.destination, o.masquerade])).toEqual([
        ["DNAT", "10.180.0.1:80", true],
      ]);
      expect(r.outcomes[0]?.path).toContain("nat/KUBE-NODE-PORT#1");
      expect(r.outcomes[0]?.delivery).toBe("ipvs");
    }
    // The ClusterIP VS, from a pod: no masquerade (no detector, src,dst only matches VIP sources).
    expect(
      summary(dp, { proto: "sctp", src: "10.180.0.7", dst: "10.20.30.41", dport: 80 }),
    ).toEqual([
      { verdict: "DNAT", destination: "10.180.0.1:80", masquerade: false, probability: 1 },
    ]);
  });

  test("UDP NodePort from outside: DNAT to the endpoint, masqueraded by KUBE-NODE-PORT-UDP", () => {
    const dp = caseDataplane("nodeport-udp");
    expect(
      summary(dp, { proto: "udp", src: "203.0.113.9", dst: "100.101.102.103", dport: 3001 }),
    ).toEqual([
      { verdict: "DNAT", destination: "10.180.0.1:80", masquerade: true, probability: 1 },
    ]);
    // TCP on the same node port: not a virtual server, no service.
    expect(
      trace(dp, {
        proto: "tcp",
        src: "203.0.113.9",
        dst: "100.101.102.103",
        dport: 3001,
      }).outcomes.map((o) => o.destination),
    ).toEqual([undefined]);
  });
});

describe("IPVS mode mechanisms", () => {
  const yaml = `apiVersion: v1
kind: Service
metadata: {name: lb, namespace: ns1}
spec:
  type: LoadBalancer
  clusterIP: 10.20.30.41
  externalTrafficPolicy: Local
  healthCheckNodePort: 30000
  loadBalancerSourceRanges: [203.0.113.0/24]
  ports: [{name: p, port: 80, protocol: TCP, nodePort: 3001}]
status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}
---
apiVersion: v1
kind: Service
metadata: {name: empty, namespace: ns1}
spec:
  clusterIP: 10.20.30.42
  ports: [{name: p, port: 80, protocol: SCTP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: lb-1, namespace: ns1, labels: {kubernetes.io/service-name: lb}}
addressType: IPv4
endpoints:
- addresses: [10.180.0.1]
  nodeName: test-node
- addresses: [10.180.1.1]
  nodeName: other
ports: [{name: p, port: 8080, protocol: TCP}]
`;
  const node = {
    ...NODE,
    interfaces: [
      { name: "lo", addresses: ["127.0.0.1/8"] },
      { name: "eth0", addresses: ["100.101.102.103/24"] },
      { name: "cbr0", addresses: ["10.180.0.254/24"] },
    ],
  };
  const dp = buildNodeDataplane(parseCluster([{ file: "t.yaml", text: yaml }]), {
    node,
    proxyConfig: { ...FAKE_PROXY_CONFIG, mode: "ipvs" },
  });

  test("a virtual server without real servers answers port unreachable", () => {
    const r = trace(dp, { proto: "sctp", src: "10.180.0.1", dst: "10.20.30.42", dport: 80 });
    expect(r.outcomes.map((o) => o.verdict)).toEqual(["REJECT"]);
    expect(r.explanation.outcomes[0]?.some((s) => s.kind === "ipvs-no-real-servers")).toBe(true);
  });

  test("KUBE-IPVS-FILTER rejects a new connection to a VIP on a non-service port", () => {
    const r = trace(dp, { proto: "tcp", src: "10.180.0.1", dst: "10.20.30.41", dport: 22 });
    expect(r.outcomes.map((o) => [o.verdict, o.path.at(-1)])).toEqual([
      ["REJECT", "filter/KUBE-IPVS-FILTER#6"],
    ]);
  });

  test("LB source ranges: a client in range reaches the local endpoint unmasqueraded, others are dropped", () => {
    expect(summary(dp, { proto: "tcp", src: "203.0.113.5", dst: "1.2.3.4", dport: 80 })).toEqual([
      { verdict: "DNAT", destination: "10.180.0.1:8080", masquerade: false, probability: 1 },
    ]);
    const denied = trace(dp, { proto: "tcp", src: "198.18.0.1", dst: "1.2.3.4", dport: 80 });
    expect(denied.outcomes.map((o) => [o.verdict, o.path.at(-1)])).toEqual([
      ["DROP", "filter/KUBE-SOURCE-RANGES-FIREWALL#2"],
    ]);
  });

  test("externalTrafficPolicy Local NodePort: local endpoint only, no masquerade (LOCAL set RETURNs first)", () => {
    expect(
      summary(dp, { proto: "tcp", src: "198.18.0.1", dst: "100.101.102.103", dport: 3001 }),
    ).toEqual([
      { verdict: "DNAT", destination: "10.180.0.1:8080", masquerade: false, probability: 1 },
    ]);
  });

  test("ClusterIP: weight-proportional over all endpoints; hairpin is masqueraded by KUBE-LOOP-BACK", () => {
    const r = trace(dp, { proto: "tcp", src: "10.180.0.1", dst: "10.20.30.41", dport: 80 });
    expect(r.outcomes.map((o) => [o.destination, o.probability, o.masquerade])).toEqual([
      ["10.180.0.1:8080", 0.5, true],
      ["10.180.1.1:8080", 0.5, false],
    ]);
    expect(r.outcomes[0]?.path).toContain("nat/KUBE-POSTROUTING#1");
  });

  test("the health-check node port is accepted on the node", () => {
    const r = trace(dp, { proto: "tcp", src: "198.18.0.1", dst: "100.101.102.103", dport: 30000 });
    expect(r.outcomes.map((o) => [o.verdict, o.delivery])).toEqual([["ACCEPT", "local"]]);
  });

  test("the node reaching the LB VIP from the VIP itself is dropped by KUBE-IPVS-OUT-FILTER", () => {
    const r = trace(dp, {
      proto: "tcp",
      src: "1.2.3.4",
      dst: "1.2.3.4",
      dport: 80,
      origin: "local",
    });
    expect(r.outcomes.map((o) => [o.verdict, o.path.at(-1)])).toEqual([
      ["DROP", "filter/KUBE-IPVS-OUT-FILTER#1"],
    ]);
  });
});

test("why SCTP NodePorts need hash:ip,port: bitmap:port never matches an SCTP packet (spec §4)", () => {
  const out = renderYaml(`apiVersion: v1
kind: Service
metadata: {name: s, namespace: ns1}
spec:
  type: NodePort
  clusterIP: 10.20.30.41
  ports: [{name: t, port: 80, protocol: TCP, nodePort: 3001}, {name: s, port: 80, protocol: SCTP, nodePort: 3001}]
`);
  const sets = parseIpsetSave(out.ipset);
  const endpoint = (protocol: "tcp" | "sctp") => [
    { kind: "endpoint" as const, ip: parseIP("100.101.102.103")!, protocol, port: 3001 },
    { kind: "endpoint" as const, ip: parseIP("100.101.102.103")!, protocol, port: 3001 },
  ];
  expect(ipsetTest(sets, "KUBE-NODE-PORT-TCP", endpoint("tcp"))).toBe(true);
  expect(ipsetTest(sets, "KUBE-NODE-PORT-TCP", endpoint("sctp"))).toBe(false);
  expect(ipsetTest(sets, "KUBE-NODE-PORT-SCTP-HASH", endpoint("sctp"))).toBe(true);
});
