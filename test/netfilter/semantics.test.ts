/**
 * The semantics every extension states about itself, checked on random rules over every
 * modelled match and target (test/netfilter/rule-text.arbitrary.ts):
 * - a match's `reads` is honest: two packets that agree on the fields it names (and on the
 *   fields every walk compares) get the same outcome;
 * - a target's `touches` is honest both ways: packets that agree on its fields get the same
 *   effect, and the effect changes no field outside them; a destination it reads only through
 *   the node's answer for it (DST_ROUTE, MASQUERADE) may differ when that answer does not;
 * - a match's compiled form (`compile`) decides as its `evaluate`, a target's as its `apply`;
 * - a match or target no extension models is an error that names it, in both walks;
 * - a walk that consults a `recent` list gives the same scenarios with and without
 *   explanations (the depth-first walk hands such packets to the reference walk).
 */
import { describe, expect, test } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { parseIP, type IPAddress, type IPFamily } from "../../src/net/index.js";
import {
  IptablesParseError,
  parseIptables,
  type EvalContext,
  type IpsetKey,
  type Packet,
  type Rule,
} from "../../src/netfilter/index.js";
import { ALWAYS } from "../../src/netfilter/matches/extension.js";
import type { MatchOutcome } from "../../src/netfilter/model.js";
import {
  CONNMARK,
  DPORT,
  DST,
  DST_ROUTE,
  IN_IFACE,
  MARK,
  OUT_IFACE,
  SPORT,
  SRC,
} from "../../src/netfilter/packet-fields.js";
import {
  applyTarget,
  compileMatch,
  compileTarget,
  evaluateMatch,
  matchReads,
  targetTouches,
  UnknownExtensionError,
} from "../../src/netfilter/registry.js";
import type { TargetEnv } from "../../src/netfilter/targets/extension.js";
import { buildDataplane, trace } from "../../src/netfilter/trace/index.js";
import { ruleText } from "./rule-text.arbitrary.js";
import {
  ACCEPT,
  chain,
  dnat,
  jump,
  rcheck,
  recentSet,
  rule,
  ruleSet,
  stat,
  table,
} from "./trace/builders.js";

const CHAINS = ["KUBE-SERVICES", "KUBE-SVC-ABC", "X"];
const TABLES = ["filter", "nat", "mangle", "raw"] as const;

/** One random rule of `family` in chain X of a random table, as the parser reads it. */
function randomRule(family: IPFamily): fc.Arbitrary<Rule | undefined> {
  return fc
    .constantFrom(...TABLES)
    .chain((t) => ruleText(family, t, CHAINS).map((body) => [t, body] as const))
    .map(([t, body]) => {
      const text = [`*${t}`, ...CHAINS.map((c) => `:${c} - [0:0]`), `-A X ${body}`, "COMMIT", ""];
      try {
        const rs = parseIptables(text.join("\n"), { file: "t.rules", family });
        return rs.tables[0]!.chains.find((c) => c.name === "X")!.rules[0];
      } catch (e) {
        if (e instanceof IptablesParseError) return undefined; // iptables refuses it too
        throw e;
      }
    });
}

function address(family: IPFamily): fc.Arbitrary<IPAddress> {
  const v4 = fc.oneof(
    fc.ipV4(),
    fc.constantFrom("10.244.0.1", "127.0.0.1", "192.168.0.2", "172.30.0.1"),
  );
  const v6 = fc.oneof(
    fc.ipV6(),
    fc.constantFrom("fd00::1", "2001:db8::", "::1", "fe80::1:2", "2001:db8:1:2:3:4:5:6"),
  );
  return (family === "IPv4" ? v4 : v6).map((a) => parseIP(a, "lenient")!);
}

/** The fields that differ between a trace's branches (packet-fields.ts), drawn at random. */
function perBranch(family: IPFamily) {
  return fc.record({
    src: address(family),
    sport: fc.integer({ min: 0, max: 65535 }),
    dst: address(family),
    dport: fc.oneof(fc.constantFrom(53, 80, 443, 8080), fc.integer({ min: 0, max: 65535 })),
    inInterface: fc.constantFrom("", "eth0", "eth1", "lo", "veth1234", "cni0"),
    outInterface: fc.constantFrom("", "eth0", "eth1", "lo", "cni0"),
    mark: fc.oneof(fc.constantFrom(0, 1, 0x4000, 0x4001), fc.nat()),
    connmark: fc.oneof(fc.constantFrom(0, 1, 0x4000), fc.nat()),
  });
}

function packet(family: IPFamily): fc.Arbitrary<Packet> {
  return fc
    .record({
      fields: perBranch(family),
      protocol: fc.constantFrom(
        "tcp" as const,
        "udp" as const,
        "sctp" as const,
        family === "IPv4" ? ("icmp" as const) : ("icmpv6" as const),
      ),
      ctState: fc.subarray(["NEW", "ESTABLISHED", "RELATED", "INVALID", "DNAT", "SNAT"] as const),
      fragment: fc.boolean(),
      icmpType: fc.constantFrom(0, 3, 8, 128),
      tcpFlags: fc.option(fc.constantFrom(0x02, 0x10, 0x12), { nil: undefined }),
    })
    .map((p): Packet => ({
      family,
      protocol: p.protocol,
      ...p.fields,
      ctState: p.ctState,
      icmpType: p.icmpType,
      icmpCode: 0,
      fragment: p.fragment,
      ...(p.tcpFlags !== undefined ? { tcpFlags: p.tcpFlags } : {}),
    }));
}

const FIELDS = [
  [SRC, "src"],
  [SPORT, "sport"],
  [DST, "dst"],
  [DPORT, "dport"],
  [IN_IFACE, "inInterface"],
  [OUT_IFACE, "outInterface"],
  [MARK, "mark"],
  [CONNMARK, "connmark"],
] as const;

/** `p` with the per-branch fields outside `keep` taken from `other`. */
function differingOutside(p: Packet, keep: number, other: Partial<Packet>): Packet {
  const q: Record<string, unknown> = { ...p };
  for (const [bit, name] of FIELDS) if (!(keep & bit)) q[name] = other[name];
  return q as unknown as Packet;
}

/** A small deterministic hash of a value, for answers that depend on exactly their inputs. */
function h(...parts: readonly unknown[]): number {
  let x = 17;
  for (const c of parts.map(String).join("|")) x = (Math.imul(x, 31) + c.charCodeAt(0)) >>> 0;
  return x;
}

/** A node whose answers depend on their arguments only (and on nothing of the packet). */
const ctx: EvalContext & TargetEnv = {
  hook: "FORWARD",
  table: "filter",
  flow: undefined,
  addrType: (ip, iface) => (h(ip.value, iface) % 3 === 0 ? "LOCAL" : "UNICAST"),
  ipsetTest: (name: string, key: IpsetKey) =>
    h(
      name,
      ...key.map((k) =>
        k.kind === "ip" ? k.ip.value : k.kind === "port" ? k.port : `${k.ip.value}/${k.port}`,
      ),
    ) %
      2 ===
    0,
  recentSeen: (name, addr) => h(name, addr.value) % 2 === 0,
  nfacctExists: (name) => name.length % 2 === 0,
  masqueradeSource: (outInterface, dst) =>
    outInterface === "eth1"
      ? undefined
      : parseIP(
          dst.family === "IPv4" ? `192.168.${h(outInterface, dst.value) % 4}.2` : "fd00::2",
          "lenient",
        ),
};

function probabilityOf(o: MatchOutcome): number {
  return o.kind === "match" ? 1 : o.kind === "no-match" ? 0 : o.probability;
}

const cases = (family: IPFamily) =>
  fc.record({
    rule: randomRule(family),
    p: packet(family),
    other: perBranch(family),
  });

const seen = { matches: 0, compiled: 0, targets: 0, marks: 0, nat: 0, routed: 0 };

describe.each(["IPv4", "IPv6"] as const)("extension semantics (%s)", (family) => {
  it.prop([cases(family)], { numRuns: 300, seed: 17 })(
    "a match reads only the fields it names; a compiled match decides as evaluate",
    ({ rule: r, p, other }) => {
      fc.pre(r !== undefined);
      for (const m of r.matches) {
        seen.matches++;
        const o = evaluateMatch(m, p, ctx);
        const q = differingOutside(p, matchReads(m), other);
        expect(evaluateMatch(m, q, ctx)).toEqual(o);
        const compiled = compileMatch(m);
        if (compiled === undefined) continue;
        seen.compiled++;
        if (compiled === ALWAYS) expect(o.kind).toBe("match");
        else expect(compiled(p, ctx)).toBe(probabilityOf(o));
      }
    },
  );

  it.prop([cases(family)], { numRuns: 300, seed: 17 })(
    "a target depends on and changes only the fields it names",
    ({ rule: r, p, other }) => {
      fc.pre(r?.target !== undefined && r.target.kind !== "jump");
      const t = r.target;
      seen.targets++;
      const f = targetTouches(t);
      const e = applyTarget(t, p, ctx);
      // DST_ROUTE without DST: the destination is read only through the node's answer for it,
      // so another destination with the same answer gives the same effect.
      const routed = (f & DST_ROUTE) !== 0 && (f & DST) === 0;
      if (routed) seen.routed++;
      const sameAnswers: EvalContext & TargetEnv = routed
        ? { ...ctx, masqueradeSource: (outInterface) => ctx.masqueradeSource(outInterface, p.dst) }
        : ctx;
      expect(applyTarget(t, differingOutside(p, f, other), sameAnswers)).toEqual(e);
      expect(compileTarget(t)(p, ctx)).toEqual(e);
      if (e.kind === "marks") {
        seen.marks++;
        if (e.mark !== undefined) expect(f & MARK).toBe(MARK);
        if (e.connmark !== undefined) expect(f & CONNMARK).toBe(CONNMARK);
      }
      if (e.kind === "nat") {
        seen.nat++;
        const written = e.manip === "dst" ? DST | DPORT : SRC | SPORT;
        expect(f & written).toBe(written);
      }
    },
  );
});

test("the properties above met every kind of case", () => {
  expect(seen.matches).toBeGreaterThan(100);
  expect(seen.compiled).toBeGreaterThan(20);
  expect(seen.targets).toBeGreaterThan(100);
  expect(seen.marks).toBeGreaterThan(0);
  expect(seen.nat).toBeGreaterThan(0);
  expect(seen.routed).toBeGreaterThan(0);
});

describe("what no extension models", () => {
  const interfaces = [{ name: "eth0", addresses: ["192.168.0.2/24"] }];
  const packetSpec = { proto: "tcp" as const, src: "203.0.113.2", dst: "10.0.0.1", dport: 80 };
  const withRule = (r: Rule) =>
    buildDataplane({
      ruleSets: [ruleSet([table("filter", [chain("FORWARD", [r], "ACCEPT")])])],
      interfaces,
    });

  test.each([false, true])("an unknown match is an error naming it (explain: %s)", (explain) => {
    const bogus = { module: "bogus-match" } as unknown as Rule["matches"][number];
    const dp = withRule(rule(ACCEPT, { m: [bogus] }));
    expect(() => trace(dp, packetSpec, { explain })).toThrow(UnknownExtensionError);
    expect(() => trace(dp, packetSpec, { explain })).toThrow(/"bogus-match"/);
  });

  test.each([false, true])("an unknown target is an error naming it (explain: %s)", (explain) => {
    const bogus = { kind: "BOGUS" } as unknown as NonNullable<Rule["target"]>;
    const dp = withRule(rule(bogus));
    expect(() => trace(dp, packetSpec, { explain })).toThrow(/target "BOGUS"/);
  });
});

test("a consulted recent list gives the same scenarios whichever walk starts", () => {
  const rs = ruleSet([
    table("nat", [
      chain("PREROUTING", [rule(jump("SVC"), { d: "172.30.0.41", p: "tcp" })], "ACCEPT"),
      chain("SVC", [
        rule(jump("SEP1"), { m: [rcheck("SEP1")] }),
        rule(jump("SEP1"), { m: [stat(0.5)] }),
        rule(jump("SEP2")),
      ]),
      chain("SEP1", [rule(dnat("10.180.0.1:80"), { m: [recentSet("SEP1")] })]),
      chain("SEP2", [rule(dnat("10.180.0.2:80"), { m: [recentSet("SEP2")] })]),
    ]),
  ]);
  const dp = buildDataplane({ ruleSets: [rs], interfaces: [] });
  const p = { proto: "tcp" as const, src: "203.0.113.2", dst: "172.30.0.41", dport: 80 };
  const fast = trace(dp, p, { explain: false });
  const reference = trace(dp, p, { explain: false, indexed: false });
  expect(fast.scenarios).toHaveLength(2);
  expect(fast).toEqual(reference);
});
