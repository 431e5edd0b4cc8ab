/**
 * The simulator's node dataplane: kube-proxy's rules (rendered by the iptables proxier) with the
 * node's hostPort rules merged in, traced end to end for the SCTP hostPort example.
 */
import { describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildNodeDataplane } from "../../src/node/node-dataplane.js";
import { parseCluster } from "../../src/model/load.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";
import { trace } from "../../src/netfilter/trace/index.js";

const EX = join(__dirname, "../../examples/sctp-hostport");
const cluster = parseCluster([
  { file: "pods.yaml", text: readFileSync(join(EX, "pods.yaml"), "utf8") },
]);
const node = parseNodeEnvironment(readFileSync(join(EX, "node.yaml"), "utf8"), "node.yaml");

describe("node dataplane with hostports", () => {
  const dp = buildNodeDataplane(cluster, { proxyConfig: DEFAULT_PROXY_CONFIG, node });
  const nat = dp.ruleSets.IPv4?.tables.find((t) => t.name === "nat");
  const jumps = (chain: string) =>
    (nat?.chains.find((c) => c.name === chain)?.rules ?? []).map((r) =>
      r.target?.kind === "jump" ? r.target.chain : r.target?.kind,
    );

  test("KUBE-SERVICES is evaluated before KUBE-HOSTPORTS; KUBE-MARK-MASQ is kube-proxy's", () => {
    for (const hook of ["PREROUTING", "OUTPUT"]) {
      const j = jumps(hook);
      expect(j.indexOf("KUBE-SERVICES")).toBeGreaterThanOrEqual(0);
      expect(j.indexOf("KUBE-SERVICES")).toBeLessThan(j.indexOf("KUBE-HOSTPORTS"));
    }
    expect(jumps("KUBE-MARK-MASQ")).toEqual(["MARK"]);
  });

  test("SCTP to nodeIP:5060 reaches the pod; the pod reaching itself is masqueraded", () => {
    const outside = trace(dp, {
      proto: "sctp",
      src: "192.168.0.10",
      dst: "192.168.0.2",
      dport: 5060,
    });
    expect(outside.outcomes.map((o) => [o.verdict, o.destination, o.masquerade])).toEqual([
      ["DNAT", "10.244.1.5:5060", false],
    ]);
    const self = trace(dp, { proto: "sctp", src: "10.244.1.5", dst: "192.168.0.2", dport: 5060 });
    expect(self.outcomes.map((o) => [o.destination, o.masquerade])).toEqual([
      ["10.244.1.5:5060", true],
    ]);
    const tcp = trace(dp, { proto: "tcp", src: "192.168.0.10", dst: "192.168.0.2", dport: 5060 });
    expect(tcp.outcomes.some((o) => o.verdict === "DNAT")).toBe(false);
  });

  test("hostports: false leaves them out", () => {
    const plain = buildNodeDataplane(cluster, {
      proxyConfig: DEFAULT_PROXY_CONFIG,
      node,
      hostports: false,
    });
    const r = trace(plain, { proto: "sctp", src: "192.168.0.10", dst: "192.168.0.2", dport: 5060 });
    expect(r.outcomes.some((o) => o.verdict === "DNAT")).toBe(false);
  });

  test("portmap rules can be chosen instead", () => {
    const pm = buildNodeDataplane(cluster, {
      proxyConfig: DEFAULT_PROXY_CONFIG,
      node,
      hostports: "portmap",
    });
    const r = trace(pm, { proto: "tcp", src: "192.168.0.10", dst: "192.168.0.2", dport: 80 });
    expect(r.outcomes.map((o) => o.destination)).toEqual(["10.244.1.6:8080"]);
  });
});
