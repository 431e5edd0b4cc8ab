/**
 * The acceptance flows through the real tracer with `mode: nftables` (kube-proxy's nftables
 * base chains at their hooks, conntrack NAT, masquerade in nat-postrouting, exact numgen
 * probabilities), plus what only the real tracer knows (probabilities, eTP=Local, firewall).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import { trace } from "../../../src/netfilter/trace/tracer.js";
import type { PacketSpec } from "../../../src/netfilter/trace/result.js";
import { caseDirs, loadCase, readFlows } from "./helpers.js";
import { FEATURE_CASES, type FeatureCase } from "./feature-cases.js";

const withFlows = caseDirs().filter((d) => existsSync(join(d, "flows.tsv")));

interface Seen {
  readonly output: string;
  readonly masq: boolean;
}

/** The trace's outcomes in upstream's words: DNAT destinations, or DROP / REJECT, or "". */
function asUpstream(c: FeatureCase | ReturnType<typeof loadCase>, p: PacketSpec): Seen {
  const dp = buildNodeDataplane(c.cluster, { ...c, hostports: false });
  const r = trace(dp, p);
  const dnats = r.outcomes.filter((o) => o.verdict === "DNAT");
  const n = dnats.length;
  for (const o of dnats) expect(o.probability).toBeCloseTo(1 / n, 9);
  const stopped = r.outcomes.filter((o) => o.verdict === "DROP" || o.verdict === "REJECT");
  return {
    output: [...dnats.map((o) => o.destination ?? ""), ...stopped.map((o) => o.verdict)].join(", "),
    masq: r.outcomes.some((o) => o.masquerade),
  };
}

test("the acceptance data has flow cases", () => {
  expect(withFlows.length).toBeGreaterThanOrEqual(4);
});

describe.each(withFlows)("%s", (dir) => {
  const c = { ...loadCase(dir) };
  const flows = readFlows(join(dir, "flows.tsv"));
  test.each(flows.map((f, i) => ({ ...f, row: i + 1 })))("row $row: $name", (f) => {
    expect.hasAssertions();
    const got = asUpstream(c, {
      proto: f.protocol === "" ? "tcp" : (f.protocol as "tcp"),
      src: f.sourceIP,
      dst: f.destIP,
      dport: f.destPort,
    });
    // Upstream lists endpoints in vmap order; the tracer sorts outcomes by destination.
    const sorted = (s: string): string => s.split(", ").sort().join(", ");
    expect({ output: sorted(got.output), masq: got.masq }).toEqual({
      output: sorted(f.output),
      masq: f.masq,
    });
  });
});

const byName = (name: string): FeatureCase => {
  const c = FEATURE_CASES.find((x) => x.name === name);
  if (c === undefined) throw new Error(`no case ${name}`);
  return c;
};

describe("features through the real tracer", () => {
  test("eTP=Local: an external client reaches only the local endpoint, unmasqueraded", () => {
    const got = asUpstream(byName("edge/ing local endpoint"), {
      proto: "tcp",
      src: "203.0.113.9",
      dst: "198.51.100.10",
      dport: 443,
    });
    expect(got).toEqual({ output: "10.244.2.21:8443", masq: false });
  });

  test("eTP=Local: a pod reaches both endpoints (short-circuit), unmasqueraded", () => {
    const got = asUpstream(byName("edge/ing local endpoint"), {
      proto: "tcp",
      src: "10.1.2.3",
      dst: "198.51.100.10",
      dport: 443,
    });
    expect(got).toEqual({ output: "10.244.1.20:8443, 10.244.2.21:8443", masq: false });
  });

  test("eTP=Local without local endpoints: external traffic is dropped", () => {
    const got = asUpstream(byName("edge/ing no local endpoint"), {
      proto: "tcp",
      src: "203.0.113.9",
      dst: "198.51.100.10",
      dport: 443,
    });
    expect(got.output).toBe("DROP");
  });

  test("LB source ranges: outside sources are dropped before DNAT, inside ones reach the endpoint", () => {
    const fw = byName("firewall");
    expect(
      asUpstream(fw, { proto: "tcp", src: "198.18.0.1", dst: "1.2.3.4", dport: 80 }).output,
    ).toBe("DROP");
    expect(asUpstream(fw, { proto: "tcp", src: "203.0.113.7", dst: "1.2.3.4", dport: 80 })).toEqual(
      {
        output: "10.180.0.5:80",
        masq: true,
      },
    );
  });

  test("no endpoints: every destination is rejected, SCTP/UDP alike", () => {
    const c = byName("no endpoints");
    for (const [dst, dport] of [
      ["172.30.0.47", 80],
      ["192.168.99.47", 80],
      ["5.6.7.47", 80],
      ["192.168.0.2", 3007],
    ] as const)
      expect(asUpstream(c, { proto: "udp", src: "10.1.2.3", dst, dport }).output).toBe("REJECT");
  });

  test("SCTP NodePort: DNAT and masquerade; TCP to the same port finds nothing", () => {
    const c = byName("tel/sig");
    expect(
      asUpstream(c, { proto: "sctp", src: "203.0.113.9", dst: "192.168.0.2", dport: 30905 }),
    ).toEqual({
      output: "10.244.3.4:2905",
      masq: true,
    });
    expect(
      asUpstream(c, { proto: "tcp", src: "203.0.113.9", dst: "192.168.0.2", dport: 30905 }),
    ).toEqual({
      output: "",
      masq: false,
    });
  });

  test("localhost never takes NodePorts", () => {
    const c = byName("tel/sig");
    expect(
      asUpstream(c, { proto: "sctp", src: "127.0.0.1", dst: "127.0.0.1", dport: 30905 }).output,
    ).toBe("");
  });

  test("dual stack: the ip6 table serves IPv6 with exact halves", () => {
    const got = asUpstream(byName("dual stack"), {
      proto: "tcp",
      src: "fd00:10::5",
      dst: "fd00:172:30::49",
      dport: 80,
    });
    expect(got).toEqual({ output: "[fd00:10:180::2:9]:80, [fd00:10:180::9]:80", masq: false });
  });
});
