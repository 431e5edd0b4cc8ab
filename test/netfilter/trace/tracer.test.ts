import { describe, expect, test } from "@jest/globals";
import {
  buildDataplane,
  trace,
  traceEstablished,
  type TraceOptions,
} from "../../../src/netfilter/trace/index.js";
import type { RuleSet } from "../../../src/netfilter/model.js";
import { evaluateMatch } from "../../../src/netfilter/registry.js";
import {
  ACCEPT,
  DROP,
  MASQUERADE,
  REJECT,
  RETURN,
  chain,
  dnat,
  dport,
  goto,
  jump,
  markIs,
  orMark,
  rcheck,
  recentSet,
  rule,
  ruleSet,
  srcLocal,
  stat,
  table,
  xorMark,
} from "./builders.js";
import { parseIP } from "../../../src/net/index.js";

const interfaces = [
  { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
  { name: "eth0", addresses: ["192.168.0.2/24"] },
  { name: "eth1", addresses: ["10.180.0.254/16"] },
];
// The evaluator given explicitly: the reference walk, without the flow cache.
const opts: TraceOptions = { evaluateMatch };
const dp = (rs: RuleSet | undefined, extra: Partial<Parameters<typeof buildDataplane>[0]> = {}) =>
  buildDataplane({ ruleSets: rs === undefined ? [] : [rs], interfaces, ...extra });

const tcp = (src: string, dst: string, port: number) => ({
  proto: "tcp" as const,
  src,
  dst,
  dport: port,
});

/** A small kube-proxy-like nat table: one service with two endpoints, and masquerade. */
const kubeLike = ruleSet([
  table("nat", [
    chain("PREROUTING", [rule(jump("SERVICES"))], "ACCEPT"),
    chain("OUTPUT", [rule(jump("SERVICES"))], "ACCEPT"),
    chain("POSTROUTING", [rule(jump("POST"))], "ACCEPT"),
    chain("SERVICES", [rule(jump("SVC"), { p: "tcp", d: "172.30.0.41", m: [dport(80)] })]),
    chain("SVC", [
      rule(jump("MARK-MASQ"), { notS: "10.0.0.0/8" }),
      rule(jump("SEP1"), { m: [stat(0.5)] }),
      rule(jump("SEP2")),
    ]),
    chain("SEP1", [rule(dnat("10.180.0.1:8080"), { p: "tcp" })]),
    chain("SEP2", [rule(dnat("10.180.0.2:8080"), { p: "tcp" })]),
    chain("MARK-MASQ", [rule(orMark(0x4000))]),
    chain("POST", [
      rule(RETURN, { m: [markIs(0x4000, 0x4000, true)] }),
      rule(xorMark(0x4000)),
      rule(MASQUERADE),
    ]),
  ]),
]);

describe("trace", () => {
  test("no rule set: the packet is forwarded untouched (NONE)", () => {
    const r = trace(dp(undefined), tcp("203.0.113.2", "10.180.0.1", 80), opts);
    expect(r.origin).toBe("remote");
    expect(r.outcomes).toHaveLength(1);
    expect(r.outcomes[0]).toMatchObject({
      verdict: "NONE",
      masquerade: false,
      probability: 1,
      delivery: "forward",
      path: [],
    });
    expect(r.outcomes[0]!.destination).toBeUndefined();
  });

  test("statistic branches give exact weighted DNAT outcomes with masquerade from POSTROUTING", () => {
    const r = trace(dp(kubeLike), tcp("203.0.113.2", "172.30.0.41", 80), opts);
    expect(r.outcomes.map((o) => [o.verdict, o.destination, o.masquerade, o.probability])).toEqual([
      ["DNAT", "10.180.0.1:8080", true, 0.5],
      ["DNAT", "10.180.0.2:8080", true, 0.5],
    ]);
    const first = r.outcomes[0]!;
    expect(first.path).toEqual([
      "nat/PREROUTING#1",
      "nat/SERVICES#1",
      "nat/SVC#1",
      "nat/MARK-MASQ#1",
      "nat/SVC#2",
      "nat/SEP1#1",
      "nat/POSTROUTING#1",
      "nat/POST#2",
      "nat/POST#3",
    ]);
    // MASQUERADE picks the address of the outgoing interface (eth1 holds 10.180.0.0/16).
    expect(first.source).toBe("10.180.0.254:40000");
    // KUBE-POSTROUTING's xor cleared the mark again.
    expect(first.mark).toBe("0x0");
    expect(first.conntrack).toEqual({
      proto: "tcp",
      family: "IPv4",
      original: { src: "203.0.113.2", sport: 40000, dst: "172.30.0.41", dport: 80 },
      reply: { src: "10.180.0.1", sport: 8080, dst: "10.180.0.254", dport: 40000 },
      dnat: true,
      snat: true,
      mark: 0,
    });
  });

  test("a source inside the local-traffic range is not masqueraded", () => {
    const r = trace(dp(kubeLike), tcp("10.1.2.3", "172.30.0.41", 80), opts);
    expect(r.outcomes.every((o) => !o.masquerade && o.verdict === "DNAT")).toBe(true);
  });

  test("three endpoints with 1/3 and 1/2 split evenly", () => {
    const rs = ruleSet([
      table("nat", [
        chain(
          "PREROUTING",
          [
            rule(dnat("10.180.0.1:80"), { m: [stat(1 / 3)] }),
            rule(dnat("10.180.0.2:80"), { m: [stat(1 / 2)] }),
            rule(dnat("10.180.0.3:80")),
          ],
          "ACCEPT",
        ),
      ]),
    ]);
    const r = trace(dp(rs), tcp("203.0.113.2", "172.30.0.9", 80), opts);
    expect(r.outcomes.map((o) => o.destination)).toEqual([
      "10.180.0.1:80",
      "10.180.0.2:80",
      "10.180.0.3:80",
    ]);
    for (const o of r.outcomes) expect(o.probability).toBeCloseTo(1 / 3, 12);
  });

  test("filter FORWARD DROP after DNAT stops the packet; REJECT likewise", () => {
    for (const verdict of [DROP, REJECT]) {
      const rs = ruleSet([
        table("nat", [chain("PREROUTING", [rule(dnat("10.180.0.1:80"))], "ACCEPT")]),
        table("filter", [chain("FORWARD", [rule(verdict, { d: "10.180.0.1" })], "ACCEPT")]),
      ]);
      const r = trace(dp(rs), tcp("203.0.113.2", "172.30.0.9", 80), opts);
      expect(r.outcomes).toHaveLength(1);
      expect(r.outcomes[0]).toMatchObject({
        verdict: verdict.kind,
        destination: "10.180.0.1:80",
        delivery: "stopped",
      });
      expect(r.outcomes[0]!.conntrack).toBeUndefined();
    }
  });

  test("an explicit ACCEPT decides the verdict; a DROP policy stops what falls through", () => {
    const rs = ruleSet([
      table("filter", [chain("INPUT", [rule(ACCEPT, { p: "tcp", m: [dport(22)] })], "DROP")]),
    ]);
    const ok = trace(dp(rs), tcp("203.0.113.2", "192.168.0.2", 22), opts);
    expect(ok.outcomes[0]).toMatchObject({ verdict: "ACCEPT", delivery: "local" });
    const no = trace(dp(rs), tcp("203.0.113.2", "192.168.0.2", 23), opts);
    expect(no.outcomes[0]).toMatchObject({ verdict: "DROP", path: [] });
    expect(no.explanation.outcomes[0]).toContainEqual({
      kind: "policy",
      table: "filter",
      chain: "INPUT",
      policy: "DROP",
    });
  });

  test("RETURN goes back to the caller; goto's RETURN goes back to the caller's caller", () => {
    const rs = (viaGoto: boolean) =>
      ruleSet([
        table("filter", [
          chain("FORWARD", [rule(jump("A")), rule(REJECT)], "ACCEPT"),
          chain("A", [rule(viaGoto ? goto("B") : jump("B")), rule(DROP)]),
          chain("B", [rule(RETURN)]),
        ]),
      ]);
    expect(
      trace(dp(rs(false)), tcp("203.0.113.2", "10.180.0.1", 80), opts).outcomes[0]!.verdict,
    ).toBe("DROP");
    expect(
      trace(dp(rs(true)), tcp("203.0.113.2", "10.180.0.1", 80), opts).outcomes[0]!.verdict,
    ).toBe("REJECT");
  });

  test("a RETURN in a built-in chain applies the policy", () => {
    const rs = ruleSet([table("filter", [chain("FORWARD", [rule(RETURN), rule(ACCEPT)], "DROP")])]);
    expect(trace(dp(rs), tcp("203.0.113.2", "10.180.0.1", 80), opts).outcomes[0]!.verdict).toBe(
      "DROP",
    );
  });

  test("locally generated packets use nat OUTPUT, and a local destination loops through INPUT", () => {
    const r = trace(dp(kubeLike), tcp("192.168.0.2", "172.30.0.41", 80), opts);
    expect(r.origin).toBe("local");
    expect(r.outcomes.map((o) => o.destination)).toEqual(["10.180.0.1:8080", "10.180.0.2:8080"]);
    expect(r.outcomes[0]!.path[0]).toBe("nat/OUTPUT#1");
    const rs = ruleSet([table("filter", [chain("INPUT", [rule(REJECT, { i: "lo" })], "ACCEPT")])]);
    const loop = trace(dp(rs), tcp("127.0.0.1", "192.168.0.2", 80), opts);
    expect(loop.outcomes[0]).toMatchObject({ verdict: "REJECT", path: ["filter/INPUT#1"] });
  });

  test("the nat table is not consulted for an established connection; the reply is reverse-translated", () => {
    const first = trace(dp(kubeLike), tcp("203.0.113.2", "172.30.0.41", 80), opts);
    const entry = first.outcomes[1]!.conntrack!;
    const again = traceEstablished(dp(kubeLike), entry, "original", opts);
    expect(again.outcomes).toHaveLength(1);
    expect(again.outcomes[0]).toMatchObject({
      destination: "10.180.0.2:8080",
      source: "10.180.0.254:40000",
      path: [],
    });
    const reply = traceEstablished(dp(kubeLike), entry, "reply", opts);
    expect(reply.packet).toMatchObject({
      src: "10.180.0.2",
      sport: 8080,
      dst: "10.180.0.254",
      dport: 40000,
    });
    // The client sees the reply coming from the service address it talked to.
    expect(reply.outcomes[0]).toMatchObject({
      destination: "203.0.113.2:40000",
      source: "172.30.0.41:80",
      delivery: "forward",
    });
  });

  test("marks are carried from PREROUTING to POSTROUTING", () => {
    const rs = ruleSet([
      table("mangle", [
        chain("PREROUTING", [rule(orMark(0x10), { s: "203.0.113.0/24" })], "ACCEPT"),
      ]),
      table("nat", [
        chain("POSTROUTING", [rule(MASQUERADE, { m: [markIs(0x10, 0x10)] })], "ACCEPT"),
      ]),
    ]);
    const r = trace(dp(rs), tcp("203.0.113.2", "10.180.0.1", 80), opts);
    expect(r.outcomes[0]).toMatchObject({
      verdict: "NONE",
      masquerade: true,
      mark: "0x10",
      source: "10.180.0.254:40000",
    });
    const other = trace(dp(rs), tcp("198.51.100.1", "10.180.0.1", 80), opts);
    expect(other.outcomes[0]).toMatchObject({ masquerade: false, mark: "0x0" });
  });

  test("recent: first packet and repeat within the timeout are both reported", () => {
    const rs = ruleSet([
      table("nat", [
        chain("PREROUTING", [rule(jump("SVC"), { d: "172.30.0.41" })], "ACCEPT"),
        chain("SVC", [
          rule(jump("SEP1"), { m: [rcheck("SEP1")] }),
          rule(jump("SEP2"), { m: [rcheck("SEP2")] }),
          rule(jump("SEP1"), { m: [stat(0.25)] }),
          rule(jump("SEP2")),
        ]),
        chain("SEP1", [rule(dnat("10.180.0.1:80"), { m: [recentSet("SEP1")] })]),
        chain("SEP2", [rule(dnat("10.180.0.2:80"), { m: [recentSet("SEP2")] })]),
      ]),
    ]);
    const r = trace(dp(rs), tcp("203.0.113.2", "172.30.0.41", 80), opts);
    expect(r.scenario).toBe("first-packet");
    expect(r.outcomes.map((o) => [o.destination, o.probability])).toEqual([
      ["10.180.0.1:80", 0.25],
      ["10.180.0.2:80", 0.75],
    ]);
    expect(r.scenarios?.map((s) => s.scenario)).toEqual(["first-packet", "repeat-within-timeout"]);
    const repeat = r.scenarios![1]!.outcomes;
    expect(repeat.map((o) => [o.destination, o.probability])).toEqual([
      ["10.180.0.1:80", 0.25],
      ["10.180.0.2:80", 0.75],
    ]);
    // The repeat is decided by the rcheck rules, not by the random ones.
    expect(repeat[0]!.path).toEqual(["nat/PREROUTING#1", "nat/SVC#1", "nat/SEP1#1"]);
    expect(repeat[1]!.path).toEqual(["nat/PREROUTING#1", "nat/SVC#2", "nat/SEP2#1"]);
    // An assumed list entry applies to every scenario.
    const assumed = trace(
      dp(rs, { recent: [{ name: "SEP2", address: "203.0.113.2" }] }),
      tcp("203.0.113.2", "172.30.0.41", 80),
      opts,
    );
    expect(assumed.outcomes.map((o) => [o.destination, o.probability])).toEqual([
      ["10.180.0.2:80", 1],
    ]);
  });

  test("no recent list consulted: no scenarios field", () => {
    expect(
      trace(dp(kubeLike), tcp("203.0.113.2", "172.30.0.41", 80), opts).scenarios,
    ).toBeUndefined();
  });

  test("addrtype LOCAL from interfaces: the loopback prefix is local, other prefixes only their address", () => {
    const rs = ruleSet([
      table("filter", [chain("OUTPUT", [rule(DROP, { m: [srcLocal()] })], "ACCEPT")]),
    ]);
    expect(
      trace(dp(rs), { ...tcp("127.0.0.5", "10.180.0.1", 80) }, opts).outcomes[0]!.verdict,
    ).toBe("DROP");
    const r = trace(dp(rs), { ...tcp("192.168.0.7", "10.180.0.1", 80) }, opts);
    expect(r.origin).toBe("remote");
    expect(r.outcomes[0]!.verdict).toBe("NONE");
  });

  test("IPVS: real servers by weight, REJECT without real servers, masquerade in POSTROUTING", () => {
    const vip = parseIP("172.30.0.41")!;
    const ipvs = {
      schedule(p: { dst: typeof vip; dport: number }) {
        if (p.dst.value !== vip.value) return undefined;
        const realServers =
          p.dport === 80
            ? [
                { address: parseIP("10.180.0.1")!, port: 8080, weight: 1 },
                { address: parseIP("10.180.0.2")!, port: 8080, weight: 3 },
                { address: parseIP("10.180.0.3")!, port: 8080, weight: 0 },
              ]
            : [];
        return {
          virtualServer: { address: vip, port: p.dport, protocol: "tcp" as const },
          realServers,
        };
      },
    };
    const withVip = [...interfaces, { name: "kube-ipvs0", addresses: ["172.30.0.41/32"] }];
    const rs = ruleSet([
      table("nat", [chain("POSTROUTING", [rule(MASQUERADE, { s: "203.0.113.0/24" })], "ACCEPT")]),
    ]);
    const d = buildDataplane({ ruleSets: [rs], interfaces: withVip, ipvs });
    const r = trace(d, tcp("203.0.113.2", "172.30.0.41", 80), opts);
    expect(
      r.outcomes.map((o) => [o.verdict, o.destination, o.probability, o.delivery, o.masquerade]),
    ).toEqual([
      ["DNAT", "10.180.0.1:8080", 0.25, "ipvs", true],
      ["DNAT", "10.180.0.2:8080", 0.75, "ipvs", true],
    ]);
    const none = trace(d, tcp("203.0.113.2", "172.30.0.41", 81), opts);
    expect(none.outcomes[0]).toMatchObject({ verdict: "REJECT" });
    const local = trace(d, tcp("192.168.0.2", "172.30.0.41", 80), opts);
    expect(local.outcomes.map((o) => o.destination)).toEqual([
      "10.180.0.1:8080",
      "10.180.0.2:8080",
    ]);
  });

  test("a bare rule set is traced on a node with only loopback addresses", () => {
    const r = trace(kubeLike, tcp("203.0.113.2", "172.30.0.41", 80), opts);
    expect(r.outcomes.map((o) => o.destination)).toEqual(["10.180.0.1:8080", "10.180.0.2:8080"]);
  });

  test("bad packets are input errors", () => {
    expect(() => trace(dp(undefined), tcp("10.0.0.1", "fd00::1", 80), opts)).toThrow(
      /different IP families/,
    );
    expect(() => trace(dp(undefined), tcp("10.0.0.300", "10.0.0.1", 80), opts)).toThrow(
      /not an IP address/,
    );
    expect(() => trace(dp(undefined), tcp("10.0.0.1", "10.0.0.2", 70000), opts)).toThrow(/port/);
  });
});
