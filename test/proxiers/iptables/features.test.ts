/**
 * Rule text of every feature, from shared/spec/kube-proxy-iptables.md §4–§5 (each case cites the
 * section it checks). Service ns1/svc1 port p80 is KUBE-*-XPGD46QRK7WJZT7O throughout.
 */
import { describe, expect, test } from "@jest/globals";
import { chainHash } from "../../../src/proxiers/common/hash.js";
import { chainLines } from "./helpers.js";
import { renderFamilies, renderOne, slice, svc } from "./feature-helpers.js";

const H = "XPGD46QRK7WJZT7O";
const sep = (ep: string, proto = "tcp", name = "ns1/svc1:p80"): string =>
  `KUBE-SEP-${chainHash(`${name}${proto}${ep}`)}`;
const nodePortSvc = svc(
  "svc1",
  "type: NodePort\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
);
const oneEndpoint = slice("svc1", "[{addresses: [10.180.0.1], nodeName: node2}]");

describe("ClusterIP (§4.2, §4.5, §4.8, §4.9)", () => {
  test("SCTP service port uses -m sctp -p sctp everywhere", () => {
    const r = renderOne(
      svc("svc1", "clusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: SCTP}]") +
        slice("svc1", "[{addresses: [10.180.0.1]}]", "[{name: p80, port: 80, protocol: SCTP}]"),
    );
    const S = "GFCIFIA5VTFSTMSM";
    expect(chainLines(r, "nat", "KUBE-SERVICES")[0]).toBe(
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m sctp -p sctp -d 172.30.0.41 --dport 80 -j KUBE-SVC-${S}`,
    );
    expect(chainLines(r, "nat", sep("10.180.0.1:80", "sctp"))).toEqual([
      `-A ${sep("10.180.0.1:80", "sctp")} -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ`,
      `-A ${sep("10.180.0.1:80", "sctp")} -m comment --comment ns1/svc1:p80 -m sctp -p sctp -j DNAT --to-destination 10.180.0.1:80`,
    ]);
  });

  test("endpoints in string order, probabilities 1/(n-i) with 10 decimals", () => {
    const r = renderOne(
      svc("svc1", "clusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]") +
        slice(
          "svc1",
          "[{addresses: [10.1.1.1]}, {addresses: [10.1.1.11]}, {addresses: [10.1.1.2]}]",
        ),
    );
    expect(chainLines(r, "nat", `KUBE-SVC-${H}`).slice(1)).toEqual([
      `-A KUBE-SVC-${H} -m comment --comment "ns1/svc1:p80 -> 10.1.1.11:80" -m statistic --mode random --probability 0.3333333333 -j ${sep("10.1.1.11:80")}`,
      `-A KUBE-SVC-${H} -m comment --comment "ns1/svc1:p80 -> 10.1.1.1:80" -m statistic --mode random --probability 0.5000000000 -j ${sep("10.1.1.1:80")}`,
      `-A KUBE-SVC-${H} -m comment --comment "ns1/svc1:p80 -> 10.1.1.2:80" -j ${sep("10.1.1.2:80")}`,
    ]);
  });

  test("unnamed port: NAME has no ':' and the hash input drops it", () => {
    const r = renderOne(
      svc("svc1", "clusterIP: 172.30.0.41\nports: [{port: 80, protocol: TCP}]") +
        slice("svc1", "[{addresses: [10.180.0.1]}]", '[{name: "", port: 80, protocol: TCP}]'),
    );
    expect(r).toContain(
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-AQI2S6QIMU7PVVRP`,
    );
  });

  test("masqueradeAll: unconditional masquerade (§5.10)", () => {
    const r = renderOne(
      svc("svc1", "clusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]") +
        oneEndpoint,
      { iptables: { masqueradeAll: true } },
    );
    expect(chainLines(r, "nat", `KUBE-SVC-${H}`)[0]).toBe(
      `-A KUBE-SVC-${H} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-MARK-MASQ`,
    );
  });

  test("headless and ExternalName services are skipped; ipMode Proxy ingress ignored (§1.2)", () => {
    const r = renderOne(
      svc("svc1", "clusterIP: None\nports: [{name: p80, port: 80, protocol: TCP}]") +
        svc("svc2", "type: ExternalName\nexternalName: example.com") +
        svc(
          "svc3",
          "type: LoadBalancer\nclusterIP: 172.30.0.43\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
          "status: {loadBalancer: {ingress: [{ip: 1.2.3.4, ipMode: Proxy}, {ip: 5.6.7.8}]}}",
        ),
    );
    expect(r).not.toContain("ns1/svc1");
    expect(r).not.toContain("ns1/svc2");
    expect(r).not.toContain("1.2.3.4");
    expect(r).toContain(
      '--comment "ns1/svc3:p80 has no endpoints" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j REJECT',
    );
  });
});

describe("no endpoints (§5.11)", () => {
  test("REJECT in filter for ClusterIP, externalIP, LB VIP and NodePort; no nat rules", () => {
    const r = renderOne(
      svc(
        "svc1",
        "type: LoadBalancer\nclusterIP: 172.30.0.41\nexternalIPs: [192.168.99.11]\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
        "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}",
      ),
    );
    expect(chainLines(r, "filter", "KUBE-SERVICES")).toEqual([
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j REJECT',
    ]);
    expect(chainLines(r, "filter", "KUBE-EXTERNAL-SERVICES")).toEqual([
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 192.168.99.11 --dport 80 -j REJECT',
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j REJECT',
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j REJECT',
    ]);
    expect(r).not.toContain("KUBE-SVC-");
    expect(r).not.toContain("KUBE-EXT-");
  });

  test("only terminating, not serving endpoints count as none; serving+terminating are a fallback (§5.13)", () => {
    const base = svc(
      "svc1",
      "clusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]",
    );
    const none = renderOne(
      base +
        slice(
          "svc1",
          "[{addresses: [10.180.0.1], conditions: {ready: false, serving: false, terminating: true}}]",
        ),
    );
    expect(none).toContain("has no endpoints");
    const fallback = renderOne(
      base +
        slice(
          "svc1",
          "[{addresses: [10.180.0.1], conditions: {ready: false, serving: true, terminating: true}}, {addresses: [10.180.0.2], conditions: {ready: false, serving: false, terminating: false}}]",
        ),
    );
    expect(chainLines(fallback, "nat", `KUBE-SVC-${H}`).slice(1)).toEqual([
      `-A KUBE-SVC-${H} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j ${sep("10.180.0.1:80")}`,
    ]);
  });
});

describe("NodePort (§4.4, §4.10)", () => {
  test("localhost counter rule, then the NodePort rule, both to EXT", () => {
    expect(chainLines(renderOne(nodePortSvc + oneEndpoint), "nat", "KUBE-NODEPORTS")).toEqual([
      `-A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3001 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-${H}`,
      `-A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-${H}`,
    ]);
  });

  test("without the nfacct counter there is no localhost counter rule", () => {
    const r = renderOne(nodePortSvc + oneEndpoint, { kernel: { nfacct: [] } });
    expect(chainLines(r, "nat", "KUBE-NODEPORTS")).toHaveLength(1);
    expect(chainLines(r, "filter", "KUBE-FORWARD")[0]).toBe(
      "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP",
    );
  });

  const last =
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain"';
  test.each([
    ["IPv4, localhost on", {}, [`${last} -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS`]],
    [
      "IPv4, localhost off",
      { iptables: { localhostNodePorts: false } },
      [`${last} -m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j KUBE-NODEPORTS`],
    ],
    [
      "explicit addresses incl. loopback, localhost off",
      {
        iptables: { localhostNodePorts: false },
        config: { nodePortAddresses: ["192.168.0.0/24", "127.0.0.1/32"] },
      },
      [`${last} -d 192.168.0.2 -j KUBE-NODEPORTS`],
    ],
    [
      "explicit addresses incl. loopback, localhost on",
      { config: { nodePortAddresses: ["127.0.0.0/8", "192.168.1.0/24"] } },
      [`${last} -d 127.0.0.1 -j KUBE-NODEPORTS`, `${last} -d 192.168.1.2 -j KUBE-NODEPORTS`],
    ],
    [
      "a zero CIDR means all",
      { config: { nodePortAddresses: ["192.168.0.0/24", "0.0.0.0/0"] } },
      [`${last} -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS`],
    ],
    [
      "primary = the node IP",
      { config: { nodePortAddresses: ["primary"] } },
      [`${last} -d 192.168.0.2 -j KUBE-NODEPORTS`],
    ],
  ] as const)("last KUBE-SERVICES rule: %s", (_n, o, expected) => {
    const rules = chainLines(renderOne(nodePortSvc + oneEndpoint, o), "nat", "KUBE-SERVICES");
    expect(rules.filter((l) => l.includes("must be the last rule"))).toEqual(expected);
    expect(rules[rules.length - 1]).toBe(expected[expected.length - 1]);
  });

  test("nodePortAddresses without 127/8 turns localhost NodePorts (and KUBE-FIREWALL) off", () => {
    const r = renderOne(nodePortSvc + oneEndpoint, {
      config: { nodePortAddresses: ["192.168.0.0/24"] },
    });
    expect(r).not.toContain("KUBE-FIREWALL");
    expect(r).not.toContain("127.0.0.0/8 --dport 3001");
  });
});

describe("LoadBalancer (§4.3, §4.7)", () => {
  const lb = (ranges: string): string =>
    svc(
      "svc1",
      `type: LoadBalancer\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]\nloadBalancerSourceRanges: ${ranges}`,
      "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}, {ip: 5.6.7.8}]}}",
    ) + oneEndpoint;

  test("source ranges: FW chain, filter DROP per VIP, node IP in range allows the VIPs", () => {
    const r = renderOne(lb('["192.168.0.0/24", " 203.0.113.0/25"]'));
    expect(chainLines(r, "nat", `KUBE-FW-${H}`)).toEqual([
      `-A KUBE-FW-${H} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 192.168.0.0/24 -j KUBE-EXT-${H}`,
      `-A KUBE-FW-${H} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 203.0.113.0/25 -j KUBE-EXT-${H}`,
      `-A KUBE-FW-${H} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 1.2.3.4 -j KUBE-EXT-${H}`,
      `-A KUBE-FW-${H} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 5.6.7.8 -j KUBE-EXT-${H}`,
      `-A KUBE-FW-${H} -m comment --comment "other traffic to ns1/svc1:p80 will be dropped by KUBE-PROXY-FIREWALL"`,
    ]);
    expect(chainLines(r, "filter", "KUBE-PROXY-FIREWALL")).toEqual([
      `-A KUBE-PROXY-FIREWALL -m comment --comment "ns1/svc1:p80 traffic not accepted by KUBE-FW-${H}" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP`,
      `-A KUBE-PROXY-FIREWALL -m comment --comment "ns1/svc1:p80 traffic not accepted by KUBE-FW-${H}" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j DROP`,
    ]);
  });

  test("without source ranges the VIP jumps straight to EXT", () => {
    const r = renderOne(lb("[]"));
    expect(r).toContain(
      `-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-EXT-${H}`,
    );
    expect(r).not.toContain("KUBE-FW-");
  });
});

describe("externalTrafficPolicy Local (§4.6, §5.6)", () => {
  const local = (nodeName: string): string =>
    svc(
      "svc1",
      "type: LoadBalancer\nexternalTrafficPolicy: Local\nhealthCheckNodePort: 30000\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
      "status: {loadBalancer: {ingress: [{ip: 1.2.3.4}]}}",
    ) +
    slice(
      "svc1",
      `[{addresses: [10.180.0.1], nodeName: ${nodeName}}, {addresses: [10.180.0.2], nodeName: node2}]`,
    );

  test("EXT short-circuits pods and host to SVC, the rest to SVL; health check ACCEPT", () => {
    const r = renderOne(local("test-node"));
    expect(chainLines(r, "nat", `KUBE-EXT-${H}`)).toEqual([
      `-A KUBE-EXT-${H} -m comment --comment "pod traffic for ns1/svc1:p80 external destinations" -s 10.0.0.0/8 -j KUBE-SVC-${H}`,
      `-A KUBE-EXT-${H} -m comment --comment "masquerade LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
      `-A KUBE-EXT-${H} -m comment --comment "route LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-${H}`,
      `-A KUBE-EXT-${H} -j KUBE-SVL-${H}`,
    ]);
    expect(chainLines(r, "nat", `KUBE-SVL-${H}`)).toEqual([
      `-A KUBE-SVL-${H} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j ${sep("10.180.0.1:80")}`,
    ]);
    expect(chainLines(r, "filter", "KUBE-NODEPORTS")).toEqual([
      '-A KUBE-NODEPORTS -m comment --comment "ns1/svc1:p80 health check node port" -m tcp -p tcp --dport 30000 -j ACCEPT',
    ]);
  });

  test("no local endpoints: no SVL, EXT without final jump, DROP in KUBE-EXTERNAL-SERVICES", () => {
    const r = renderOne(local("node3"));
    expect(r).not.toContain("KUBE-SVL-");
    expect(chainLines(r, "nat", `KUBE-EXT-${H}`)).toHaveLength(3);
    expect(chainLines(r, "filter", "KUBE-EXTERNAL-SERVICES")).toEqual([
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP',
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j DROP',
    ]);
  });
});

describe("internalTrafficPolicy Local (§5.7)", () => {
  const itp = (nodeName: string): string =>
    svc(
      "svc1",
      "internalTrafficPolicy: Local\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]",
    ) +
    slice(
      "svc1",
      `[{addresses: [10.180.0.1], nodeName: ${nodeName}}, {addresses: [10.180.0.2], nodeName: node2}]`,
    );

  test("ClusterIP goes to SVL with the masquerade rule first", () => {
    const r = renderOne(itp("test-node"));
    expect(chainLines(r, "nat", "KUBE-SERVICES")[0]).toContain(`-j KUBE-SVL-${H}`);
    expect(chainLines(r, "nat", `KUBE-SVL-${H}`)).toEqual([
      `-A KUBE-SVL-${H} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ`,
      `-A KUBE-SVL-${H} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j ${sep("10.180.0.1:80")}`,
    ]);
    expect(r).not.toContain("KUBE-SVC-");
  });

  test("no local endpoints: DROP, not REJECT, and no nat ClusterIP rule", () => {
    const r = renderOne(itp("node3"));
    expect(chainLines(r, "filter", "KUBE-SERVICES")).toEqual([
      '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no local endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j DROP',
    ]);
    expect(chainLines(r, "nat", "KUBE-SERVICES")).toHaveLength(1);
  });
});

describe("local traffic detector modes (§5.9)", () => {
  const yaml =
    `apiVersion: v1\nkind: Node\nmetadata: {name: test-node}\nspec: {podCIDR: 10.64.0.0/24, podCIDRs: [10.64.0.0/24]}\n---\n` +
    svc(
      "svc1",
      "type: NodePort\nexternalTrafficPolicy: Local\nclusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
    ) +
    slice("svc1", "[{addresses: [10.180.0.1], nodeName: test-node}]");
  test.each([
    ["NodeCIDR", { detectLocalMode: "NodeCIDR" }, "! -s 10.64.0.0/24", "-s 10.64.0.0/24"],
    [
      "BridgeInterface",
      {
        detectLocalMode: "BridgeInterface",
        detectLocal: { bridgeInterface: "cbr0", interfaceNamePrefix: "" },
      },
      "! -i cbr0",
      "-i cbr0",
    ],
    [
      "InterfaceNamePrefix",
      {
        detectLocalMode: "InterfaceNamePrefix",
        detectLocal: { bridgeInterface: "", interfaceNamePrefix: "veth" },
      },
      "! -i veth+",
      "-i veth+",
    ],
  ] as const)("%s", (_m, config, notLocal, local) => {
    const r = renderOne(yaml, { config });
    expect(chainLines(r, "nat", `KUBE-SVC-${H}`)[0]).toBe(
      `-A KUBE-SVC-${H} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ${notLocal} -j KUBE-MARK-MASQ`,
    );
    expect(chainLines(r, "nat", `KUBE-EXT-${H}`)[0]).toBe(
      `-A KUBE-EXT-${H} -m comment --comment "pod traffic for ns1/svc1:p80 external destinations" ${local} -j KUBE-SVC-${H}`,
    );
  });

  test("no detector (ClusterCIDR without clusterCIDR): no masquerade rule, no pod short-circuit", () => {
    const r = renderOne(yaml, { config: { clusterCIDR: "" } });
    expect(chainLines(r, "nat", `KUBE-SVC-${H}`)).toHaveLength(1);
    expect(chainLines(r, "nat", `KUBE-EXT-${H}`)[0]).toContain("masquerade LOCAL traffic");
  });
});

describe("environment-dependent rules (§4.10, §5.12)", () => {
  const cip =
    svc("svc1", "clusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]") +
    oneEndpoint;
  test("--random-fully, no INVALID drop with tcp_be_liberal, padded mark", () => {
    const r = renderOne(cip, {
      kernel: { iptablesRandomFully: true, conntrackTCPBeLiberal: true },
      masqueradeMarkFormat: "padded",
    });
    expect(chainLines(r, "nat", "KUBE-POSTROUTING")).toEqual([
      "-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN",
      "-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000",
      '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    ]);
    expect(chainLines(r, "filter", "KUBE-FORWARD")).toHaveLength(2);
  });

  test("masqueradeBit changes the mark", () => {
    const r = renderOne(cip, { iptables: { masqueradeBit: 2 } });
    expect(chainLines(r, "nat", "KUBE-MARK-MASQ")).toEqual([
      "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4",
    ]);
  });

  test("large-cluster mode: more than 1000 endpoints drops SEP and SVC->SEP comments only", () => {
    const eps = Array.from(
      { length: 1001 },
      (_, i) => `{addresses: [10.${i >> 8}.${i & 255}.1]}`,
    ).join(", ");
    const r = renderOne(
      svc("svc1", "clusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]") +
        slice("svc1", `[${eps}]`),
    );
    expect(r).toContain(
      `-A ${sep("10.0.0.1:80")} -m tcp -p tcp -j DNAT --to-destination 10.0.0.1:80`,
    );
    expect(r).toContain(
      `-A KUBE-SVC-${H} -m statistic --mode random --probability 0.0009990010 -j ${sep("10.0.0.1:80")}`,
    );
    expect(r).toContain('-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP"');
    const small = renderOne(cip);
    expect(small).toContain("-m comment --comment ns1/svc1:p80 -s 10.180.0.1");
  });
});

describe("IPv6 and dual stack (§5.14)", () => {
  const dual =
    svc(
      "svc1",
      "type: NodePort\nipFamilyPolicy: PreferDualStack\nipFamilies: [IPv4, IPv6]\nclusterIP: 172.30.0.41\nclusterIPs: [172.30.0.41, 'fd00:172:30::41']\nports: [{name: p80, port: 80, protocol: TCP, nodePort: 3001}]",
    ) +
    slice("svc1", "[{addresses: [10.180.0.1]}]") +
    slice(
      "svc1",
      "[{addresses: ['fd00:10:180::1']}]",
      "[{name: p80, port: 80, protocol: TCP}]",
      "IPv6",
    );

  test("one proxier per family; IPv6 brackets endpoints and skips localhost", () => {
    const [v4, v6] = renderFamilies(dual, { node: { ipFamilies: ["IPv4", "IPv6"] } });
    expect(v4!.family).toBe("IPv4");
    expect(v4!.restore).not.toContain("fd00");
    const r = v6!.restore;
    expect(r).not.toContain("KUBE-FIREWALL");
    expect(r).not.toContain("127.0.0.0/8");
    expect(r).toContain(
      `-A ${sep("[fd00:10:180::1]:80")} -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination [fd00:10:180::1]:80`,
    );
    expect(sep("[fd00:10:180::1]:80")).toBe("KUBE-SEP-OGYCNMB4EMRUSJ6N");
    expect(r).toContain(
      `-A KUBE-SVC-${H} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d fd00:172:30::41 --dport 80 ! -s fd00:10::/64 -j KUBE-MARK-MASQ`,
    );
    expect(r).toContain("-m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS");
  });
});

describe("topology (§5.8)", () => {
  const yaml = (hints: string): string =>
    `apiVersion: v1\nkind: Node\nmetadata: {name: test-node, labels: {topology.kubernetes.io/zone: zone-a}}\n---\n` +
    svc("svc1", "clusterIP: 172.30.0.41\nports: [{name: p80, port: 80, protocol: TCP}]") +
    slice("svc1", hints);
  const targets = (r: string): string[] =>
    chainLines(r, "nat", `KUBE-SVC-${H}`)
      .slice(1)
      .map((l) => /-> ([^"]+)"/.exec(l)?.[1] ?? "");

  test("zone hints pick this zone's endpoints", () => {
    const r = renderOne(
      yaml(
        "[{addresses: [10.0.0.1], hints: {forZones: [{name: zone-a}]}}, {addresses: [10.0.0.2], hints: {forZones: [{name: zone-b}]}}]",
      ),
    );
    expect(targets(r)).toEqual(["10.0.0.1:80"]);
  });

  test("node hints win when every ready endpoint has one (PreferSameNode)", () => {
    const r = renderOne(
      yaml(
        "[{addresses: [10.0.0.1], hints: {forZones: [{name: zone-a}], forNodes: [{name: node2}]}}, {addresses: [10.0.0.2], hints: {forZones: [{name: zone-b}], forNodes: [{name: test-node}]}}]",
      ),
    );
    expect(targets(r)).toEqual(["10.0.0.2:80"]);
  });

  test("a missing hint or no match disables filtering", () => {
    expect(
      targets(
        renderOne(
          yaml(
            "[{addresses: [10.0.0.1], hints: {forZones: [{name: zone-a}]}}, {addresses: [10.0.0.2]}]",
          ),
        ),
      ),
    ).toEqual(["10.0.0.1:80", "10.0.0.2:80"]);
    expect(
      targets(
        renderOne(
          yaml(
            "[{addresses: [10.0.0.1], hints: {forZones: [{name: zone-c}]}}, {addresses: [10.0.0.2], hints: {forZones: [{name: zone-b}]}}]",
          ),
        ),
      ),
    ).toEqual(["10.0.0.1:80", "10.0.0.2:80"]);
  });
});
