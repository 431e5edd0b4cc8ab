/**
 * The IPVS proxier feature by feature, with expectations taken from shared/spec/ipvs-proxier.md
 * (the section is named in each test) and the upstream unit tests it cites.
 */
import { describe, expect, test } from "@jest/globals";
import { formatIP } from "../../../src/net/index.js";
import { IPVS_FLAG_PERSISTENT, IPVS_FLAG_SCHED2 } from "../../../src/netfilter/ipvs/index.js";
import { ipsetName } from "../../../src/proxiers/ipvs/index.js";
import {
  FAKE_PROXY_CONFIG,
  NODE,
  chainRules,
  ipsetEntries,
  ipsetTypes,
  jumpAndMatchSet,
  renderYaml,
  tableAsSet,
} from "./helpers.js";

function svc(spec: string, name = "svc1", ns = "ns1", status = ""): string {
  return `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ${ns}}
spec:
${spec}
${status}
---
`;
}
function slice(
  endpoints: string,
  ports: string,
  service = "svc1",
  ns = "ns1",
  addressType = "IPv4",
  name = `${service}-1`,
): string {
  return `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: ${name}, namespace: ${ns}, labels: {kubernetes.io/service-name: ${service}}}
addressType: ${addressType}
endpoints:
${endpoints}
ports:
${ports}
---
`;
}
const entries = (text: string, set: string) => ipsetEntries(text).get(set) ?? [];
const jumps = (restore: string, chain: string) =>
  [...chainRules(restore, "nat", chain), ...chainRules(restore, "filter", chain)].map(
    jumpAndMatchSet,
  );

describe("§5.2 restore payload", () => {
  test("the spec's worked example (TCP NodePort 30080, no detector, bit 14, random-fully) byte for byte", () => {
    const out = renderYaml(
      svc(`  type: NodePort
  clusterIP: 10.96.0.50
  ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP, nodePort: 30080}]`) +
        slice(
          `- addresses: [10.244.1.5]\n  nodeName: other-node`,
          `- {name: http, port: 8080, protocol: TCP}`,
        ),
      { ...NODE, kernel: { ...NODE.kernel, iptablesRandomFully: true } },
    );
    const nat = out.iptables.slice(0, out.iptables.indexOf("*filter"));
    expect(nat).toBe(`*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-LOAD-BALANCER - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN
-A KUBE-NODE-PORT -p tcp -m comment --comment "Kubernetes nodeport TCP port for masquerade purpose" -m set --match-set KUBE-NODE-PORT-TCP dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP src,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
-A KUBE-POSTROUTING -m mark ! --mark 0x004000/0x004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x004000
COMMIT
`);
  });

  test("§5.1 chain declarations in TestCreateAndLinkKubeChain's order; KUBE-IPVS-FILTER always", () => {
    const out = renderYaml("");
    const decls = out.iptables.split("\n").filter((l) => l.startsWith(":") || l.startsWith("*"));
    expect(decls).toEqual([
      "*nat",
      ":KUBE-SERVICES - [0:0]",
      ":KUBE-POSTROUTING - [0:0]",
      ":KUBE-NODE-PORT - [0:0]",
      ":KUBE-LOAD-BALANCER - [0:0]",
      ":KUBE-MARK-MASQ - [0:0]",
      "*filter",
      ":KUBE-FORWARD - [0:0]",
      ":KUBE-NODE-PORT - [0:0]",
      ":KUBE-PROXY-FIREWALL - [0:0]",
      ":KUBE-SOURCE-RANGES-FIREWALL - [0:0]",
      ":KUBE-IPVS-FILTER - [0:0]",
      ":KUBE-IPVS-OUT-FILTER - [0:0]",
    ]);
    expect(chainRules(out.iptables, "filter", "KUBE-IPVS-FILTER")).toEqual([
      "-A KUBE-IPVS-FILTER -m set --match-set KUBE-LOAD-BALANCER dst,dst -j RETURN",
      "-A KUBE-IPVS-FILTER -m set --match-set KUBE-CLUSTER-IP dst,dst -j RETURN",
      "-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP dst,dst -j RETURN",
      "-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst -j RETURN",
      "-A KUBE-IPVS-FILTER -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j RETURN",
      "-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst -j REJECT",
    ]);
    // No service: no set-driven rule, and no ClusterIP masquerade/accept rules.
    expect(chainRules(out.iptables, "nat", "KUBE-SERVICES")).toEqual([
      "-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN",
      "-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT",
    ]);
  });

  const clusterIPSvc =
    svc(`  clusterIP: 10.96.0.10
  ports: [{name: p, port: 80, protocol: TCP}]`) +
    slice(`- addresses: [10.244.0.5]`, `- {name: p, port: 80, protocol: TCP}`);

  test("§5.2 step 3: ClusterCIDR detector → dst,dst ! -s CIDR; masqueradeAll → dst,dst", () => {
    const withDetector = renderYaml(clusterIPSvc, NODE, {
      ...FAKE_PROXY_CONFIG,
      clusterCIDR: "10.244.0.0/16",
      detectLocalMode: "ClusterCIDR",
    });
    expect(chainRules(withDetector.iptables, "nat", "KUBE-SERVICES")[1]).toBe(
      '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ',
    );
    const all = renderYaml(clusterIPSvc, NODE, {
      ...FAKE_PROXY_CONFIG,
      clusterCIDR: "10.244.0.0/16",
      iptables: { ...FAKE_PROXY_CONFIG.iptables, masqueradeAll: true },
    });
    expect(chainRules(all.iptables, "nat", "KUBE-SERVICES")[1]).toBe(
      '-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ',
    );
  });

  test("masquerade bit 0 prints as %#08x (0x000001)", () => {
    const out = renderYaml(clusterIPSvc, NODE, {
      ...FAKE_PROXY_CONFIG,
      iptables: { ...FAKE_PROXY_CONFIG.iptables, masqueradeBit: 0 },
    });
    expect(chainRules(out.iptables, "nat", "KUBE-MARK-MASQ")).toEqual([
      "-A KUBE-MARK-MASQ -j MARK --or-mark 0x000001",
    ]);
  });
});

describe("§3 virtual servers and §2 kube-ipvs0", () => {
  test("ClusterIP: one VS, RS weight 1, address bound as /32; headless and ExternalName give nothing", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.96.0.10
  ports: [{name: p, port: 80, protocol: TCP}]`) +
        slice(
          `- addresses: [10.244.0.6]\n- addresses: [10.244.0.5]`,
          `- {name: p, port: 8080, protocol: TCP}`,
        ) +
        svc(`  clusterIP: None\n  ports: [{name: p, port: 80}]`, "headless") +
        slice(`- addresses: [10.244.0.7]`, `- {name: p, port: 80}`, "headless") +
        svc(`  type: ExternalName\n  externalName: example.com`, "ext"),
    );
    expect(tableAsSet(out.state.table)).toEqual([
      "TCP 10.96.0.10:80 rr flags=0 timeout=0 -> [10.244.0.5:8080 w1, 10.244.0.6:8080 w1]",
    ]);
    expect(out.addresses).toEqual(["10.96.0.10/32"]);
    expect(entries(out.ipset, "KUBE-IPVS-IPS")).toEqual(["10.96.0.10"]);
  });

  test("a multi-port service binds its ClusterIP once", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.96.0.10
  ports: [{name: a, port: 80, protocol: TCP}, {name: b, port: 53, protocol: UDP}, {name: c, port: 9, protocol: SCTP}]`),
    );
    expect(out.state.table.services).toHaveLength(3);
    expect(out.addresses).toEqual(["10.96.0.10/32"]);
    expect(entries(out.ipset, "KUBE-CLUSTER-IP").sort()).toEqual([
      "10.96.0.10,sctp:9",
      "10.96.0.10,tcp:80",
      "10.96.0.10,udp:53",
    ]);
  });

  test("TestExternalIPs: {50.60.70.81, 2012::51, 127.0.0.1} on an IPv4 proxier → 3 VS", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.20.30.41
  externalIPs: [50.60.70.81, "2012::51", 127.0.0.1]
  ports: [{name: p80, port: 80, protocol: TCP}]`) +
        slice(`- addresses: [10.180.0.1]`, `- {name: p80, port: 80, protocol: TCP}`),
    );
    expect(out.state.table.services.map((s) => formatIP(s.virtualServer.address)).sort()).toEqual([
      "10.20.30.41",
      "127.0.0.1",
      "50.60.70.81",
    ]);
    expect(entries(out.ipset, "KUBE-EXTERNAL-IP").sort()).toEqual([
      "127.0.0.1,tcp:80",
      "50.60.70.81,tcp:80",
    ]);
    // ETP Cluster: the masquerade rule and the two ACCEPT rules (§5.2 step 4).
    expect(
      jumps(out.iptables, "KUBE-SERVICES").filter((r) => r.matchSet === "KUBE-EXTERNAL-IP"),
    ).toEqual([
      { jump: "KUBE-MARK-MASQ", matchSet: "KUBE-EXTERNAL-IP" },
      { jump: "ACCEPT", matchSet: "KUBE-EXTERNAL-IP" },
      { jump: "ACCEPT", matchSet: "KUBE-EXTERNAL-IP" },
    ]);
  });

  test("an externalIP that is a node address gets a VS but is not bound on kube-ipvs0", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.20.30.41
  externalIPs: [100.101.102.103, 50.60.70.81]
  ports: [{name: p80, port: 80, protocol: TCP}]`),
    );
    expect(out.state.table.services).toHaveLength(3);
    expect(out.addresses).toEqual(["10.20.30.41/32", "50.60.70.81/32"]);
  });

  test("sessionAffinity ClientIP: every VS of the service is persistent with timeout 10800", () => {
    const out = renderYaml(
      svc(`  type: NodePort
  clusterIP: 10.20.30.41
  externalIPs: [50.60.70.81]
  sessionAffinity: ClientIP
  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]`),
    );
    expect(out.state.table.services).toHaveLength(3);
    for (const s of out.state.table.services) {
      expect(s.virtualServer.flags).toBe(IPVS_FLAG_PERSISTENT);
      expect(s.virtualServer.timeout).toBe(10800);
    }
    expect(out.ipvs).toContain("-A -t 10.20.30.41:80 -s rr -p 10800\n");
  });

  test("scheduler mh sets FlagSourceHash (0x10)", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.20.30.41\n  ports: [{name: p80, port: 80}]`),
      NODE,
      { ...FAKE_PROXY_CONFIG, ipvs: { ...FAKE_PROXY_CONFIG.ipvs, scheduler: "mh" } },
    );
    expect(out.state.table.services[0]?.virtualServer).toMatchObject({
      scheduler: "mh",
      flags: IPVS_FLAG_SCHED2,
    });
  });

  test("the default (empty) scheduler is rr", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.20.30.41\n  ports: [{name: p80, port: 80}]`),
      NODE,
      {
        ...FAKE_PROXY_CONFIG,
        ipvs: { ...FAKE_PROXY_CONFIG.ipvs, scheduler: "" },
      },
    );
    expect(out.ipvs).toBe("-A -t 10.20.30.41:80 -s rr\n");
  });

  test("NodePort VS on every node address except loopback and IPv6 link-local; none when no node IP", () => {
    const node = {
      ...NODE,
      interfaces: [
        { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
        { name: "eth0", addresses: ["192.168.0.2/24", "169.254.1.1/16", "fe80::1/64"] },
        { name: "kube-ipvs0", addresses: ["10.96.0.99/32"] },
      ],
    };
    const yaml = svc(`  type: LoadBalancer
  clusterIP: 10.20.30.41
  externalTrafficPolicy: Local
  healthCheckNodePort: 30000
  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]`);
    const out = renderYaml(yaml, node);
    expect(
      out.state.families[0]?.virtualServers
        .filter((v) => v.source === "node-port")
        .map((v) => formatIP(v.virtualServer.address)),
    ).toEqual(["192.168.0.2", "169.254.1.1"]);
    expect(entries(out.ipset, "KUBE-HEALTH-CHECK-NODE-PORT")).toEqual(["30000"]);
    const none = renderYaml(yaml, { ...node, interfaces: [node.interfaces[0]!] });
    expect(none.state.table.services).toHaveLength(1);
    expect(entries(none.ipset, "KUBE-NODE-PORT-TCP")).toEqual([]);
    // The NodePort part is skipped, and with it the health-check node port.
    expect(entries(none.ipset, "KUBE-HEALTH-CHECK-NODE-PORT")).toEqual([]);
  });

  test("nodePortAddresses narrows the NodePort VS to matching interface addresses", () => {
    const node = {
      ...NODE,
      interfaces: [{ name: "eth0", addresses: ["192.168.0.2/24", "10.0.0.2/8"] }],
    };
    const out = renderYaml(
      svc(`  type: NodePort
  clusterIP: 10.20.30.41
  ports: [{name: p, port: 80, protocol: SCTP, nodePort: 3001}]`),
      node,
      { ...FAKE_PROXY_CONFIG, nodePortAddresses: ["10.0.0.0/8"] },
    );
    expect(out.ipvs).toBe(
      "-A --sctp-service 10.0.0.2:3001 -s rr\n-A --sctp-service 10.20.30.41:80 -s rr\n",
    );
    expect(entries(out.ipset, "KUBE-NODE-PORT-SCTP-HASH")).toEqual(["10.0.0.2,sctp:3001"]);
  });

  test("LoadBalancer: ingress VS bound; ipMode Proxy gives no LB VS", () => {
    const lb = (ipMode: string) =>
      renderYaml(
        svc(
          `  type: LoadBalancer
  clusterIP: 10.20.30.41
  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]`,
          "svc1",
          "ns1",
          `status:\n  loadBalancer:\n    ingress: [{ip: 1.2.3.4${ipMode}}]`,
        ),
      );
    const vip = lb("");
    expect(vip.state.table.services.map((s) => formatIP(s.virtualServer.address)).sort()).toEqual([
      "1.2.3.4",
      "10.20.30.41",
      "100.101.102.103",
    ]);
    expect(vip.addresses).toEqual(["10.20.30.41/32", "1.2.3.4/32"]);
    expect(entries(vip.ipset, "KUBE-LOAD-BALANCER")).toEqual(["1.2.3.4,tcp:80"]);
    expect(jumps(vip.iptables, "KUBE-LOAD-BALANCER")).toEqual([
      { jump: "KUBE-MARK-MASQ", matchSet: null },
    ]);
    const proxy = lb(", ipMode: Proxy");
    expect(proxy.state.table.services).toHaveLength(2);
    expect(entries(proxy.ipset, "KUBE-LOAD-BALANCER")).toEqual([]);
  });
});

describe("§3 externalTrafficPolicy Local and internalTrafficPolicy Local", () => {
  const etpLocal = (local: boolean) =>
    svc(
      `  type: LoadBalancer
  clusterIP: 10.20.30.41
  externalIPs: [50.60.70.81]
  externalTrafficPolicy: Local
  healthCheckNodePort: 30000
  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]`,
      "svc1",
      "ns1",
      `status:\n  loadBalancer:\n    ingress: [{ip: 1.2.3.4}]`,
    ) +
    slice(
      `- addresses: [10.180.0.1]\n  nodeName: ${local ? "test-node" : "other"}\n- addresses: [10.180.1.1]\n  nodeName: other`,
      `- {name: p80, port: 80, protocol: TCP}`,
    );

  test("external VS (NodePort, externalIP, LB) → local endpoint only; ClusterIP VS → all", () => {
    const out = renderYaml(etpLocal(true));
    expect(tableAsSet(out.state.table)).toEqual([
      "TCP 1.2.3.4:80 rr flags=0 timeout=0 -> [10.180.0.1:80 w1]",
      "TCP 10.20.30.41:80 rr flags=0 timeout=0 -> [10.180.0.1:80 w1, 10.180.1.1:80 w1]",
      "TCP 50.60.70.81:80 rr flags=0 timeout=0 -> [10.180.0.1:80 w1]",
      "TCP 100.101.102.103:3001 rr flags=0 timeout=0 -> [10.180.0.1:80 w1]",
    ]);
  });

  test("no local endpoint: external VS fall back to cluster endpoints (PR #97081)", () => {
    const out = renderYaml(etpLocal(false));
    expect(out.state.table.services).toHaveLength(4);
    for (const s of out.state.table.services) expect(s.realServers).toHaveLength(2);
  });

  test("Local sets, and KUBE-NODE-PORT = RETURN(local), MASQ(set), ACCEPT(HC, filter)", () => {
    const out = renderYaml(etpLocal(true));
    expect(entries(out.ipset, "KUBE-NODE-PORT-LOCAL-TCP")).toEqual(["3001"]);
    expect(entries(out.ipset, "KUBE-NODE-PORT-TCP")).toEqual(["3001"]);
    expect(entries(out.ipset, "KUBE-LOAD-BALANCER-LOCAL")).toEqual(["1.2.3.4,tcp:80"]);
    expect(entries(out.ipset, "KUBE-EXTERNAL-IP-LOCAL")).toEqual(["50.60.70.81,tcp:80"]);
    expect(entries(out.ipset, "KUBE-EXTERNAL-IP")).toEqual([]);
    expect(entries(out.ipset, "KUBE-HEALTH-CHECK-NODE-PORT")).toEqual(["30000"]);
    expect(entries(out.ipset, "KUBE-LOOP-BACK")).toEqual(["10.180.0.1,tcp:80,10.180.0.1"]);
    expect(jumps(out.iptables, "KUBE-NODE-PORT")).toEqual([
      { jump: "RETURN", matchSet: "KUBE-NODE-PORT-LOCAL-TCP" },
      { jump: "KUBE-MARK-MASQ", matchSet: "KUBE-NODE-PORT-TCP" },
      { jump: "ACCEPT", matchSet: "KUBE-HEALTH-CHECK-NODE-PORT" },
    ]);
    expect(jumps(out.iptables, "KUBE-LOAD-BALANCER")).toEqual([
      { jump: "RETURN", matchSet: "KUBE-LOAD-BALANCER-LOCAL" },
      { jump: "KUBE-MARK-MASQ", matchSet: null },
    ]);
    // externalIP with ETP Local: the two ACCEPT rules, no masquerade (§5.2 step 5).
    expect(
      jumps(out.iptables, "KUBE-SERVICES").filter((r) => r.matchSet?.startsWith("KUBE-EXTERNAL")),
    ).toEqual([
      { jump: "ACCEPT", matchSet: "KUBE-EXTERNAL-IP-LOCAL" },
      { jump: "ACCEPT", matchSet: "KUBE-EXTERNAL-IP-LOCAL" },
    ]);
    // KUBE-POSTROUTING: hairpin MASQUERADE first.
    expect(jumps(out.iptables, "KUBE-POSTROUTING")[0]).toEqual({
      jump: "MASQUERADE",
      matchSet: "KUBE-LOOP-BACK",
    });
  });

  test("health-check node ports only for ETP=Local LB services (30000, 30001, not the Cluster one)", () => {
    const lbSvc = (name: string, etp: string, hc: number, np: number) =>
      svc(
        `  type: LoadBalancer
  clusterIP: 10.20.30.${np - 2990}
  externalTrafficPolicy: ${etp}
  ${hc === 0 ? "" : `healthCheckNodePort: ${hc}`}
  ports: [{name: p80, port: 80, protocol: TCP, nodePort: ${np}}]`,
        name,
      );
    const out = renderYaml(
      lbSvc("a", "Local", 30000, 3001) +
        lbSvc("b", "Local", 30001, 3002) +
        lbSvc("c", "Cluster", 0, 3003),
    );
    expect(entries(out.ipset, "KUBE-HEALTH-CHECK-NODE-PORT")).toEqual(["30000", "30001"]);
  });

  test("internalTrafficPolicy Local without local endpoints: the ClusterIP VS has no RS", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.20.30.41
  internalTrafficPolicy: Local
  ports: [{name: p80, port: 80, protocol: TCP}]`) +
        slice(
          `- addresses: [10.180.1.1]\n  nodeName: other`,
          `- {name: p80, port: 80, protocol: TCP}`,
        ),
    );
    expect(tableAsSet(out.state.table)).toEqual(["TCP 10.20.30.41:80 rr flags=0 timeout=0 -> []"]);
  });

  test("§7 serving+terminating fallback and KUBE-LOOP-BACK including non-serving local endpoints", () => {
    const out = renderYaml(
      svc(`  clusterIP: 10.20.30.41
  ports: [{name: p80, port: 80, protocol: TCP}]`) +
        slice(
          [
            "- addresses: [10.0.1.1]\n  nodeName: test-node\n  conditions: {ready: false, serving: true, terminating: true}",
            "- addresses: [10.0.1.2]\n  nodeName: test-node\n  conditions: {ready: false, serving: true, terminating: true}",
            "- addresses: [10.0.1.3]\n  nodeName: test-node\n  conditions: {ready: false, serving: false, terminating: true}",
            "- addresses: [10.0.1.4]\n  nodeName: other\n  conditions: {ready: false, serving: true, terminating: true}",
            "- addresses: [10.0.1.5]\n  nodeName: test-node\n  conditions: {ready: false, serving: false, terminating: false}",
          ].join("\n"),
          `- {name: p80, port: 80, protocol: TCP}`,
        ),
    );
    expect(tableAsSet(out.state.table)).toEqual([
      "TCP 10.20.30.41:80 rr flags=0 timeout=0 -> [10.0.1.1:80 w1, 10.0.1.2:80 w1, 10.0.1.4:80 w1]",
    ]);
    expect(entries(out.ipset, "KUBE-LOOP-BACK")).toEqual([
      "10.0.1.1,tcp:80,10.0.1.1",
      "10.0.1.2,tcp:80,10.0.1.2",
      "10.0.1.3,tcp:80,10.0.1.3",
      "10.0.1.5,tcp:80,10.0.1.5",
    ]);
  });
});

describe("§4/§5 LoadBalancer source ranges", () => {
  const lbWithRanges =
    svc(
      `  type: LoadBalancer
  clusterIP: 10.20.30.41
  loadBalancerSourceRanges: [1.2.3.0/24, 100.101.0.0/16, 198.18.0.7/32]
  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]`,
      "svc1",
      "ns1",
      `status:\n  loadBalancer:\n    ingress: [{ip: 1.2.3.4}]`,
    ) + slice(`- addresses: [10.180.0.1]`, `- {name: p80, port: 80, protocol: TCP}`);

  test("without a node IP: FW + SOURCE-CIDR entries, and node→VIP dropped in KUBE-IPVS-OUT-FILTER", () => {
    const out = renderYaml(lbWithRanges);
    expect(entries(out.ipset, "KUBE-LOAD-BALANCER-FW")).toEqual(["1.2.3.4,tcp:80"]);
    expect(entries(out.ipset, "KUBE-LOAD-BALANCER-SOURCE-CIDR")).toEqual([
      "1.2.3.4,tcp:80,1.2.3.0/24",
      "1.2.3.4,tcp:80,100.101.0.0/16",
      // ipset save prints a host net without its /32 (checked on the kernel: kernel.test.ts).
      "1.2.3.4,tcp:80,198.18.0.7",
    ]);
    expect(entries(out.ipset, "KUBE-LOAD-BALANCER-SOURCE-IP")).toEqual([]);
    expect(chainRules(out.iptables, "filter", "KUBE-PROXY-FIREWALL")).toEqual([
      '-A KUBE-PROXY-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port for load balancer with sourceRange" -m set --match-set KUBE-LOAD-BALANCER-FW dst,dst -j KUBE-SOURCE-RANGES-FIREWALL',
    ]);
    expect(chainRules(out.iptables, "filter", "KUBE-SOURCE-RANGES-FIREWALL")).toEqual([
      '-A KUBE-SOURCE-RANGES-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port + source cidr for packet filter purpose" -m set --match-set KUBE-LOAD-BALANCER-SOURCE-CIDR dst,dst,src -j RETURN',
      "-A KUBE-SOURCE-RANGES-FIREWALL -j DROP",
    ]);
    expect(chainRules(out.iptables, "filter", "KUBE-IPVS-OUT-FILTER")).toEqual([
      "-A KUBE-IPVS-OUT-FILTER -s 1.2.3.4 -m ipvs --vaddr 1.2.3.4 --vproto tcp --vport 80 -j DROP",
    ]);
  });

  test("a range holding the node IP: SOURCE-IP entry lbIP,proto:port,lbIP and no DROP rule", () => {
    const out = renderYaml(lbWithRanges, { ...NODE, nodeIPs: ["100.101.102.103"] });
    expect(entries(out.ipset, "KUBE-LOAD-BALANCER-SOURCE-IP")).toEqual(["1.2.3.4,tcp:80,1.2.3.4"]);
    expect(chainRules(out.iptables, "filter", "KUBE-IPVS-OUT-FILTER")).toEqual([]);
    expect(jumps(out.iptables, "KUBE-SOURCE-RANGES-FIREWALL")).toEqual([
      { jump: "RETURN", matchSet: "KUBE-LOAD-BALANCER-SOURCE-CIDR" },
      { jump: "RETURN", matchSet: "KUBE-LOAD-BALANCER-SOURCE-IP" },
      { jump: "DROP", matchSet: null },
    ]);
  });
});

describe("§4 IPv6 proxier", () => {
  const node6 = {
    ...NODE,
    ipFamilies: ["IPv6" as const],
    interfaces: [{ name: "eth0", addresses: ["2001:db8::1:1/128", "fe80::1/64"] }],
  };
  const out = renderYaml(
    svc(`  type: NodePort
  ipFamilies: [IPv6]
  clusterIP: "2020::1"
  clusterIPs: ["2020::1"]
  externalTrafficPolicy: Local
  ports: [{name: p, port: 80, protocol: SCTP, nodePort: 3001}]`) +
      slice(
        `- addresses: ["1002:ab8::2:10"]\n  nodeName: test-node`,
        `- {name: p, port: 80, protocol: SCTP}`,
        "svc1",
        "ns1",
        "IPv6",
      ),
    node6,
  );

  test("KUBE-6- names cut to 31 chars, family inet6; bitmap sets keep the prefix", () => {
    const types = ipsetTypes(out.ipset);
    expect(types.get("KUBE-6-NODE-PORT-LOCAL-SCTP-HAS")).toBe(
      "hash:ip,port family inet6 hashsize 1024 maxelem 65536",
    );
    expect(types.get("KUBE-6-LOAD-BALANCER-SOURCE-CID")).toBe(
      "hash:ip,port,net family inet6 hashsize 1024 maxelem 65536",
    );
    expect(types.get("KUBE-6-NODE-PORT-TCP")).toBe("bitmap:port range 0-65535");
    expect(types.size).toBe(17);
    expect(ipsetName("NODE-PORT-LOCAL-SCTP-HASH", "IPv6")).toHaveLength(31);
  });

  test("entries with bare IPv6 addresses; VS in brackets; ::1/128 RETURN; /128 on kube-ipvs0", () => {
    expect(entries(out.ipset, "KUBE-6-NODE-PORT-SCTP-HASH")).toEqual(["2001:db8::1:1,sctp:3001"]);
    expect(entries(out.ipset, "KUBE-6-NODE-PORT-LOCAL-SCTP-HAS")).toEqual([
      "2001:db8::1:1,sctp:3001",
    ]);
    expect(entries(out.ipset, "KUBE-6-LOOP-BACK")).toEqual([
      "1002:ab8::2:10,sctp:80,1002:ab8::2:10",
    ]);
    expect(out.ipvs).toBe(
      "-A --sctp-service [2001:db8::1:1]:3001 -s rr\n" +
        "-a --sctp-service [2001:db8::1:1]:3001 -r [1002:ab8::2:10]:80 -m -w 1\n" +
        "-A --sctp-service [2020::1]:80 -s rr\n" +
        "-a --sctp-service [2020::1]:80 -r [1002:ab8::2:10]:80 -m -w 1\n",
    );
    expect(chainRules(out.iptables, "nat", "KUBE-SERVICES")[0]).toBe(
      "-A KUBE-SERVICES -s ::1/128 -j RETURN",
    );
    expect(chainRules(out.iptables, "nat", "KUBE-NODE-PORT")).toEqual([
      `-A KUBE-NODE-PORT -p sctp -m comment --comment "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'" -m set --match-set KUBE-6-NODE-PORT-LOCAL-SCTP-HAS dst,dst -j RETURN`,
      `-A KUBE-NODE-PORT -p sctp -m comment --comment "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'" -m set --match-set KUBE-6-NODE-PORT-SCTP-HASH dst,dst -j KUBE-MARK-MASQ`,
    ]);
    expect(out.addresses).toEqual(["2020::1/128"]);
  });

  test("IPv6 source ranges: a /32 stays a /32, only a /128 host prints bare", () => {
    const lb = renderYaml(
      svc(
        `  type: LoadBalancer
  ipFamilies: [IPv6]
  clusterIP: "2020::1"
  clusterIPs: ["2020::1"]
  loadBalancerSourceRanges: ["fd00:244::/32", "2001:db8::5/128"]
  ports: [{name: p, port: 80, protocol: TCP, nodePort: 3001}]`,
        "svc1",
        "ns1",
        `status:\n  loadBalancer:\n    ingress: [{ip: "2001:db8:100::a"}]`,
      ),
      node6,
    );
    expect(entries(lb.ipset, "KUBE-6-LOAD-BALANCER-SOURCE-CID")).toEqual([
      "2001:db8:100::a,tcp:80,2001:db8::5",
      "2001:db8:100::a,tcp:80,fd00:244::/32",
    ]);
  });

  test("dual-stack: one shared table, both families' sets, one payload per family", () => {
    const dual = renderYaml(
      svc(`  ipFamilies: [IPv4, IPv6]
  ipFamilyPolicy: RequireDualStack
  clusterIP: 10.20.30.41
  clusterIPs: [10.20.30.41, "2020::1"]
  ports: [{name: p, port: 80, protocol: TCP}]`),
      { ...NODE, ipFamilies: ["IPv4", "IPv6"] },
    );
    expect(dual.state.table.services).toHaveLength(2);
    expect(ipsetTypes(dual.ipset).size).toBe(34);
    expect(dual.state.families.map((f) => f.family)).toEqual(["IPv4", "IPv6"]);
    expect(dual.state.families[1]?.iptables).toContain("-s ::1/128 -j RETURN");
    expect(dual.addresses).toEqual(["10.20.30.41/32", "2020::1/128"]);
  });
});

test("a node without IPVS is refused with a clear error", () => {
  expect(() => renderYaml("", { ...NODE, kernel: { ...NODE.kernel, ipvs: false } })).toThrow(
    /kernel\.ipvs: false/,
  );
});
