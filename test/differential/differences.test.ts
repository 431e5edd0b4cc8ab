/**
 * One test per documented difference (differences.ts): a concrete cluster and packet on which
 * the two proxiers behave as §9 says. Endpoint-set differences are checked with the same
 * `applies`/`relation` the property test uses; the others show the mechanism that differs.
 */
import { describe, expect, test } from "@jest/globals";
import { buildDataplane } from "../../src/netfilter/trace/dataplane.js";
import { trace } from "../../src/netfilter/trace/index.js";
import { parseIP } from "../../src/net/index.js";
import {
  IPVS_FLAG_PERSISTENT,
  ipvsHook,
  ipvsSchedule,
  indexIpvsTable,
  parseIpvsadmSave,
  persistenceTemplates,
} from "../../src/netfilter/ipvs/index.js";
import { renderIptables } from "../../src/proxiers/iptables/render-iptables.js";
import { renderIpvs } from "../../src/proxiers/ipvs/index.js";
import { DIFFERENCES, explainDisagreement, type DocumentedDifference } from "./differences.js";
import { dataplanesFor, traceBoth } from "./observe.js";
import {
  IPTABLES_CONFIG,
  IPVS_CONFIG,
  LOCAL_POD_IP,
  NODE,
  NODE_IP,
  OUTSIDE_IP,
  clusterOf,
  packetsFor,
  scenarioOf,
  type DestinationKind,
  type ServiceSpecArb,
  type SourceKind,
} from "./scenario.js";

const base: ServiceSpecArb = {
  type: "ClusterIP",
  protocol: "SCTP",
  port: 80,
  externalIP: false,
  externalPolicyLocal: false,
  internalPolicyLocal: false,
  sourceRanges: -1,
  sessionAffinity: false,
  endpoints: [true, false],
};

function scenario(spec: Partial<ServiceSpecArb>, source: SourceKind, destination: DestinationKind) {
  const services = scenarioOf([{ ...base, ...spec }]);
  const packet = packetsFor(services[0]!).find(
    (p) => p.source === source && p.destination === destination,
  );
  if (packet === undefined) throw new Error(`no ${source} → ${destination} packet`);
  const cluster = clusterOf(services);
  return { cluster, packet, result: traceBoth(dataplanesFor(cluster), packet) };
}

const byId = (id: string): DocumentedDifference => {
  const d = DIFFERENCES.find((x) => x.id === id);
  if (d === undefined) throw new Error(id);
  return d;
};

/** Shows an endpoint-set difference: it applies, its relation holds, and the sets differ. */
function expectDocumented(id: string, s: ReturnType<typeof scenario>): void {
  const { iptables, ipvs } = s.result;
  expect([...iptables.endpoints].sort()).not.toEqual([...ipvs.endpoints].sort());
  expect(explainDisagreement(s.packet, iptables, ipvs).map((d) => d.id)).toContain(id);
  expect(byId(id).endpointSets).toBe("differ");
}

describe("§9 documented differences, one concrete case each", () => {
  test("every difference is named once, with a spec reference", () => {
    const ids = DIFFERENCES.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const d of DIFFERENCES) expect(d.spec).toMatch(/^§9\.\d+/);
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
      expect(DIFFERENCES.some((d) => d.spec.startsWith(`§9.${n}`))).toBe(true);
  });

  test("vips-are-local (§9.1): a non-service port on a ClusterIP is REJECTed by IPVS, routed on by iptables", () => {
    const s = scenario({}, "pod", "cluster-ip-other-port");
    expect([...s.result.ipvs.verdicts]).toEqual(["REJECT"]);
    expect(s.result.raw.ipvs.outcomes[0]?.path).toContain("filter/KUBE-IPVS-FILTER#6");
    expect(s.result.iptables.verdicts.has("REJECT")).toBe(false);
    expect(s.result.iptables.endpoints.size).toBe(0);
    // ping the ClusterIP: port unreachable in IPVS mode, nothing answers in iptables mode.
    const dp = dataplanesFor(s.cluster);
    const ping = { proto: "icmp" as const, src: LOCAL_POD_IP, dst: "10.96.0.10", dport: 0 };
    expect(trace(dp.ipvs, ping).outcomes.map((o) => o.verdict)).toEqual(["REJECT"]);
    expect(trace(dp.iptables, ping).outcomes.map((o) => o.verdict)).not.toContain("REJECT");
  });

  test("node-to-lb-source-ranges (§9.2)", () => {
    const s = scenario(
      { type: "LoadBalancer", sourceRanges: 0, protocol: "TCP" },
      "node",
      "load-balancer",
    );
    expectDocumented("node-to-lb-source-ranges", s);
    expect(s.result.iptables.verdicts.has("DROP")).toBe(true);
  });

  test("node-port-addresses (§9.3): one VS per node address at sync time; SCTP masquerade by ip,port", () => {
    const r = renderIpvs(clusterOf(scenarioOf([{ ...base, type: "NodePort" }])), {
      node: NODE,
      proxyConfig: IPVS_CONFIG,
    });
    const nodePortVS = r.state.families[0]!.virtualServers.filter((v) => v.source === "node-port");
    expect(nodePortVS.map((v) => v.virtualServer.address)).toEqual([
      parseIP(NODE_IP),
      parseIP("10.244.1.1"),
    ]);
    expect(r.ipset).toContain(`add KUBE-NODE-PORT-SCTP-HASH ${NODE_IP},sctp:30000\n`);
    expect(r.ipset).toContain("add KUBE-NODE-PORT-SCTP-HASH 10.244.1.1,sctp:30000\n");
    const ipt = renderIptables(clusterOf(scenarioOf([{ ...base, type: "NodePort" }])), {
      node: NODE,
      proxyConfig: IPTABLES_CONFIG,
    });
    expect(ipt.restore).toContain("-m addrtype --dst-type LOCAL -j KUBE-NODEPORTS");
  });

  test("node-port-localhost (§9.4)", () => {
    const s = scenario({ type: "NodePort", protocol: "TCP" }, "node", "node-port-localhost");
    expectDocumented("node-port-localhost", s);
    expect(s.result.iptables.endpoints.size).toBe(2);
  });

  test("affinity-per-virtual-server (§9.5): a ClusterIP template does not pin the NodePort VS", () => {
    const table = parseIpvsadmSave(`-A -t 10.96.0.10:80 -s rr -p 10800
-a -t 10.96.0.10:80 -r 10.244.1.2:8080 -m -w 1
-a -t 10.96.0.10:80 -r 10.244.2.3:8080 -m -w 1
-A -t ${NODE_IP}:30000 -s rr -p 10800
-a -t ${NODE_IP}:30000 -r 10.244.1.2:8080 -m -w 1
-a -t ${NODE_IP}:30000 -r 10.244.2.3:8080 -m -w 1
`);
    const [cip, np] = table.services;
    expect(cip!.virtualServer.flags & IPVS_FLAG_PERSISTENT).toBe(IPVS_FLAG_PERSISTENT);
    const templates = persistenceTemplates([
      {
        virtualServer: cip!.virtualServer,
        client: parseIP(OUTSIDE_IP)!,
        realServer: cip!.realServers[1]!,
      },
    ]);
    const index = indexIpvsTable(table);
    const src = parseIP(OUTSIDE_IP)!;
    const viaClusterIP = ipvsSchedule(
      index,
      { protocol: "tcp", src, dst: cip!.virtualServer.address, dport: 80 },
      templates,
    );
    const viaNodePort = ipvsSchedule(
      index,
      { protocol: "tcp", src, dst: np!.virtualServer.address, dport: 30000 },
      templates,
    );
    expect(viaClusterIP).toMatchObject({ kind: "schedule", byPersistence: true });
    expect(viaNodePort).toMatchObject({ kind: "schedule", byPersistence: false });
    // iptables: the recent lists live in the per-endpoint KUBE-SEP chains of one KUBE-SVC chain.
    const ipt = renderIptables(withAffinity(), { node: NODE, proxyConfig: IPTABLES_CONFIG });
    expect(ipt.restore.match(/-m recent --name KUBE-SEP-\w+ --set/g)).toHaveLength(2);
  });

  test("no-endpoints-mechanism (§9.6): both refuse; only iptables has REJECT rules for it", () => {
    const s = scenario({ endpoints: [], protocol: "TCP" }, "pod", "cluster-ip");
    expect([...s.result.ipvs.verdicts]).toEqual(["REJECT"]);
    expect([...s.result.iptables.verdicts]).toEqual(["REJECT"]);
    const ipvs = renderIpvs(s.cluster, { node: NODE, proxyConfig: IPVS_CONFIG });
    const ipt = renderIptables(s.cluster, { node: NODE, proxyConfig: IPTABLES_CONFIG });
    expect(ipt.restore).toContain("has no endpoints");
    expect(ipvs.iptables).not.toContain("has no endpoints");
    expect(ipvs.ipvs).toBe("-A -t 10.96.0.10:80 -s rr\n");
  });

  test("etp-local-fallback (§9.7)", () => {
    const s = scenario(
      { type: "NodePort", externalPolicyLocal: true, endpoints: [false, false] },
      "outside",
      "node-port",
    );
    expectDocumented("etp-local-fallback", s);
  });

  test("etp-local-pod-and-node-sources (§9.7)", () => {
    const s = scenario({ type: "NodePort", externalPolicyLocal: true }, "pod", "node-port");
    expectDocumented("etp-local-pod-and-node-sources", s);
  });

  test("itp-local-fallback (§9.7, corrected)", () => {
    const s = scenario(
      { type: "NodePort", internalPolicyLocal: true, endpoints: [false] },
      "pod",
      "cluster-ip",
    );
    expectDocumented("itp-local-fallback", s);
    // Not externally reachable: both give no backend, as §9.7 says.
    const plain = scenario({ internalPolicyLocal: true, endpoints: [false] }, "pod", "cluster-ip");
    expect(plain.result.ipvs.endpoints.size).toBe(0);
    expect(plain.result.iptables.endpoints.size).toBe(0);
  });

  test("masquerade-by-ipset (§9.8): hairpin masqueraded by KUBE-LOOP-BACK vs the KUBE-SEP rule", () => {
    const s = scenario({ endpoints: [true] }, "pod", "cluster-ip");
    const hairpin = { proto: "sctp" as const, src: "10.244.1.2", dst: "10.96.0.10", dport: 80 };
    const dp = dataplanesFor(s.cluster);
    const ipvs = trace(dp.ipvs, hairpin).outcomes;
    const ipt = trace(dp.iptables, hairpin).outcomes;
    expect(ipvs.map((o) => [o.destination, o.masquerade])).toEqual([["10.244.1.2:8080", true]]);
    expect(ipt.map((o) => [o.destination, o.masquerade])).toEqual([["10.244.1.2:8080", true]]);
    expect(ipvs[0]?.path).toContain("nat/KUBE-POSTROUTING#1");
    expect(ipt[0]?.path.some((p) => p.startsWith("nat/KUBE-SEP-") && p.endsWith("#1"))).toBe(true);
  });

  test("draining-real-servers (§9.9): a weight-0 real server gets no new connection", () => {
    const table = parseIpvsadmSave(`-A -t 10.96.0.10:80 -s rr
-a -t 10.96.0.10:80 -r 10.244.1.2:8080 -m -w 1
-a -t 10.96.0.10:80 -r 10.244.2.3:8080 -m -w 0
`);
    const dp = buildDataplane({
      ruleSets: [],
      interfaces: [...NODE.interfaces, { name: "kube-ipvs0", addresses: ["10.96.0.10/32"] }],
      ipvs: ipvsHook(table),
    });
    const r = trace(dp, { proto: "tcp", src: OUTSIDE_IP, dst: "10.96.0.10", dport: 80 });
    expect(r.outcomes.map((o) => [o.destination, o.probability])).toEqual([["10.244.1.2:8080", 1]]);
  });

  test("load-distribution (§9.10): same backend set, each mode with its own mechanism", () => {
    const s = scenario(
      { endpoints: [true, false, false], protocol: "UDP" },
      "outside",
      "cluster-ip",
    );
    expect([...s.result.ipvs.endpoints].sort()).toEqual([...s.result.iptables.endpoints].sort());
    expect(
      s.result.raw.ipvs.outcomes.every((o) => o.path.every((p) => !p.includes("KUBE-SVC"))),
    ).toBe(true);
    expect(
      s.result.raw.iptables.outcomes.some((o) => o.path.some((p) => p.includes("KUBE-SVC"))),
    ).toBe(true);
  });

  test("health-check-node-ports (§9.11): both accept; IPVS by ipset, iptables by a per-port rule", () => {
    const s = scenario(
      { type: "LoadBalancer", externalPolicyLocal: true, protocol: "TCP" },
      "outside",
      "node-port",
    );
    const dp = dataplanesFor(s.cluster);
    const hc = { proto: "tcp" as const, src: OUTSIDE_IP, dst: NODE_IP, dport: 32000 };
    const ipvs = trace(dp.ipvs, hc).outcomes;
    const ipt = trace(dp.iptables, hc).outcomes;
    expect(ipvs.map((o) => o.verdict)).toEqual(["ACCEPT"]);
    expect(ipt.map((o) => o.verdict)).toEqual(["ACCEPT"]);
    expect(ipvs[0]?.path).toContain("filter/KUBE-NODE-PORT#1");
    expect(ipt[0]?.path.some((p) => p.startsWith("filter/KUBE-NODEPORTS#"))).toBe(true);
  });

  test("no-per-service-chains (§9.12)", () => {
    const cluster = clusterOf(scenarioOf([{ ...base, type: "LoadBalancer", sourceRanges: 0 }]));
    const ipvs = renderIpvs(cluster, { node: NODE, proxyConfig: IPVS_CONFIG }).iptables;
    const ipt = renderIptables(cluster, { node: NODE, proxyConfig: IPTABLES_CONFIG }).restore;
    for (const prefix of ["KUBE-SVC-", "KUBE-SEP-", "KUBE-EXT-", "KUBE-FW-"]) {
      expect(ipvs).not.toContain(prefix);
      expect(ipt).toContain(prefix);
    }
    expect(ipvs).not.toContain("-j DNAT");
    expect(ipvs).not.toContain("default/s0");
  });

  test("stale-virtual-servers (§9.13): the rendered table holds only kube-proxy's virtual servers", () => {
    const r = renderIpvs(clusterOf(scenarioOf([{ ...base, type: "NodePort", externalIP: true }])), {
      node: NODE,
      proxyConfig: IPVS_CONFIG,
    });
    const planned = r.state.families.flatMap((f) => f.virtualServers);
    expect(r.state.table.services).toHaveLength(planned.length);
    expect(planned.every((v) => v.servicePortName === "default/s0:p")).toBe(true);
  });
});

function withAffinity() {
  const c = clusterOf(scenarioOf([{ ...base, type: "NodePort", protocol: "TCP" }]));
  return {
    ...c,
    services: c.services.map((s) => ({ ...s, spec: { ...s.spec, sessionAffinity: "ClientIP" } })),
  };
}
