import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { parseIptables } from "../../../src/netfilter/index.js";
import type { Packet } from "../../../src/netfilter/model.js";
import { evaluateMatch } from "../../../src/netfilter/registry.js";
import {
  compileRuleCondition,
  compileRuleMatcher,
} from "../../../src/netfilter/trace/rule-compile.js";
import { ruleHolds } from "../../../src/netfilter/trace/rule-match.js";
import { parseIP } from "../../../src/net/index.js";

const STATES = ["NEW", "ESTABLISHED", "RELATED", "INVALID", "DNAT", "SNAT"] as const;
const neg = fc.constantFrom("", "! ");
const port = fc.constantFrom("80", "53", "79:81", "1:1024", "8080");

/** Rule options the compiled matchers decide inline (addresses, tcp/udp ports, mark, ctstate). */
const ruleText = fc
  .record({
    proto: fc.constantFrom("tcp", "udp"),
    s: fc.option(fc.tuple(neg, fc.constantFrom("10.244.0.0/16", "10.1.0.5", "10.0.0.0/8"))),
    d: fc.option(fc.tuple(neg, fc.constantFrom("172.30.0.1", "172.30.0.0/24"))),
    sport: fc.option(fc.tuple(neg, port)),
    dport: fc.option(fc.tuple(neg, port)),
    syn: fc.boolean(),
    mark: fc.option(fc.tuple(neg, fc.constantFrom("0x4000/0x4000", "0x1", "0x0/0xff"))),
    ct: fc.option(fc.tuple(neg, fc.subarray([...STATES], { minLength: 1 }))),
    stat: fc.option(fc.constantFrom("0.5000000000", "0.1000000000")),
  })
  .map((o) => {
    const w = [`-A C -p ${o.proto}`];
    if (o.s) w.push(`${o.s[0]}-s ${o.s[1]}`);
    if (o.d) w.push(`${o.d[0]}-d ${o.d[1]}`);
    if (o.sport || o.dport || o.syn) {
      w.push(`-m ${o.proto}`);
      if (o.sport) w.push(`${o.sport[0]}--sport ${o.sport[1]}`);
      if (o.dport) w.push(`${o.dport[0]}--dport ${o.dport[1]}`);
      if (o.syn && o.proto === "tcp") w.push("--syn");
    }
    if (o.mark) w.push(`-m mark ${o.mark[0]}--mark ${o.mark[1]}`);
    if (o.ct) w.push(`-m conntrack ${o.ct[0]}--ctstate ${o.ct[1].join(",")}`);
    if (o.stat) w.push(`-m statistic --mode random --probability ${o.stat}`);
    w.push("-j ACCEPT");
    return w.join(" ");
  });

const packet: fc.Arbitrary<Packet> = fc
  .record({
    protocol: fc.constantFrom("tcp" as const, "udp" as const, "icmp" as const),
    src: fc.constantFrom("10.244.3.4", "10.1.0.5", "192.168.0.9"),
    dst: fc.constantFrom("172.30.0.1", "172.30.0.9", "10.0.0.1"),
    sport: fc.constantFrom(53, 80, 1024, 40000),
    dport: fc.constantFrom(53, 79, 80, 81, 8080),
    mark: fc.constantFrom(0, 1, 0x4000, 0x4001),
    ctState: fc.subarray([...STATES]),
    fragment: fc.boolean(),
    tcpFlags: fc.option(fc.constantFrom(0x02, 0x10, 0x12), { nil: undefined }),
  })
  .map((p) => ({
    family: "IPv4" as const,
    protocol: p.protocol,
    src: parseIP(p.src)!,
    sport: p.sport,
    dst: parseIP(p.dst)!,
    dport: p.dport,
    inInterface: "eth0",
    outInterface: "eth1",
    mark: p.mark,
    connmark: 0,
    ctState: p.ctState,
    fragment: p.fragment,
    ...(p.tcpFlags !== undefined ? { tcpFlags: p.tcpFlags } : {}),
  }));

const ctx = {
  hook: "FORWARD" as const,
  table: "filter" as const,
  addrType: () => "UNICAST" as const,
  ipsetTest: () => undefined,
  recentSeen: () => false,
  nfacctExists: () => false,
};

/** `-p P -m P` without ports (kube-proxy's DNAT rules), which compile to one test. */
const protocolOnlyText = fc
  .record({
    proto: fc.constantFrom(
      ["tcp", "tcp"],
      ["udp", "udp"],
      ["6", "tcp"],
      ["17", "udp"],
      ["TCP", "tcp"],
      ["udp", "tcp"],
    ),
    neg: neg,
    comment: fc.boolean(),
  })
  .map(
    (o) =>
      `-A C ${o.neg}-p ${o.proto[0]}${o.comment ? " -m comment --comment x" : ""} -m ${o.proto[1]} -j DNAT --to-destination 10.0.0.1:80`,
  );

describe("compiled rule matchers", () => {
  it.prop([protocolOnlyText, packet], { numRuns: 200 })(
    "decide `-p P -m P` as ruleHolds",
    (text, p) => {
      let rule;
      try {
        rule = parseIptables(`*nat\n:C - [0:0]\n${text}\nCOMMIT\n`, {
          file: "t.rules",
          family: "IPv4",
        }).tables[0]!.chains.find((c) => c.name === "C")!.rules[0]!;
      } catch {
        fc.pre(false); // a combination iptables refuses too
        return;
      }
      const o = ruleHolds(rule, p, ctx, evaluateMatch);
      const expected = o.kind === "match" ? 1 : o.kind === "no-match" ? 0 : o.probability;
      expect(compileRuleMatcher(rule)(p, ctx)).toBe(expected);
    },
  );

  it.prop([ruleText, packet], { numRuns: 300 })(
    "decide as ruleHolds with the match registry",
    (text, p) => {
      const rs = parseIptables(`*filter\n:C - [0:0]\n${text}\nCOMMIT\n`, {
        file: "t.rules",
        family: "IPv4",
      });
      const rule = rs.tables[0]!.chains.find((c) => c.name === "C")!.rules[0]!;
      const o = ruleHolds(rule, p, ctx, evaluateMatch);
      const expected = o.kind === "match" ? 1 : o.kind === "no-match" ? 0 : o.probability;
      expect(compileRuleMatcher(rule)(p, ctx)).toBe(expected);
    },
  );

  /** Rules of comments and statistic shares, with or without a condition that reads the packet. */
  const sharesText = fc
    .record({
      comment: fc.boolean(),
      shares: fc.array(
        fc.tuple(neg, fc.constantFrom("0.5000000000", "0.1000000000", "1.0000000000", "0.0")),
        { maxLength: 2 },
      ),
      proto: fc.boolean(),
    })
    .map((o) => {
      const w = ["-A C"];
      if (o.proto) w.push("-p tcp");
      if (o.comment) w.push('-m comment --comment "svc -> ep"');
      for (const [n, p] of o.shares) w.push(`-m statistic --mode random ${n}--probability ${p}`);
      w.push("-j ACCEPT");
      return { text: w.join(" "), readsPacket: o.proto };
    });

  it.prop([sharesText, packet], { numRuns: 200 })(
    "give a fixed probability exactly for rules that read no packet field, and the same number",
    ({ text, readsPacket }, p) => {
      const rs = parseIptables(`*filter\n:C - [0:0]\n${text}\nCOMMIT\n`, {
        file: "t.rules",
        family: "IPv4",
      });
      const rule = rs.tables[0]!.chains.find((c) => c.name === "C")!.rules[0]!;
      const o = ruleHolds(rule, p, ctx, evaluateMatch);
      const expected = o.kind === "match" ? 1 : o.kind === "no-match" ? 0 : o.probability;
      const { matcher, constant } = compileRuleCondition(rule);
      expect(constant === undefined).toBe(readsPacket);
      expect(matcher(p, ctx)).toBe(expected);
      if (constant !== undefined) expect(constant).toBe(expected);
    },
  );
});
