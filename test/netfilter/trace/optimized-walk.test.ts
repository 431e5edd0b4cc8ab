/**
 * The indexed walk (compiled rule conditions, destination index, table walks shared between
 * branches with equal packets) against the naive walk (every rule, `ruleHolds`), on random
 * rule sets where statistic branches reach FORWARD / OUTPUT / POSTROUTING with equal and
 * different packets, marks are set and tested, and chains are entered by -j and -g and left by
 * RETURN. Results must be identical, explanations included.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";
import { parsePacketSpec, TraceInputError } from "../../../src/netfilter/trace/packet-spec.js";
import { formatIP, parseIP } from "../../../src/net/index.js";
import type { Match, Rule, RuleSet } from "../../../src/netfilter/model.js";
import type { Target } from "../../../src/netfilter/targets/index.js";
import {
  ACCEPT,
  DROP,
  MASQUERADE,
  REJECT,
  RETURN,
  chain,
  dnat,
  goto,
  jump,
  orMark,
  rule,
  ruleSet,
  statistic,
  table,
  tcpDport,
  xorMark,
} from "./builders.js";

const markIs = (value: number, negated: boolean): Match => ({
  module: "mark",
  mark: { value: { value, mask: value }, negated },
});
const ctstate = (negated: boolean): Match => ({
  module: "conntrack",
  ctstate: { value: ["NEW"], negated },
});

/** Few DNAT destinations, so several branches reach the later hooks with equal packets. */
const ENDPOINTS = ["10.1.0.5", "10.1.0.6", "192.168.0.2"];

const cond = fc.record(
  {
    mark: fc.record({ bit: fc.constantFrom(1, 2, 4), negated: fc.boolean() }),
    stat: fc.constantFrom(0.5, 0.3, 1),
    ct: fc.boolean(),
    port: fc.constantFrom(80, 81),
    d: fc.constantFrom("10.1.0.5", "10.1.0.0/16", "172.30.0.1"),
  },
  { requiredKeys: [] },
);

/** Conditions on marks, conntrack state and chance only: the later hooks' walks are shared. */
const markCond = fc.record(
  {
    mark: fc.record({ bit: fc.constantFrom(1, 2, 4), negated: fc.boolean() }),
    stat: fc.constantFrom(0.5, 1),
    ct: fc.boolean(),
  },
  { requiredKeys: [] },
);
const laterCond = fc.oneof(cond, markCond, markCond);

function ruleOf(t: Target | undefined, c: object): Rule {
  const o = c as {
    mark?: { bit: number; negated: boolean };
    stat?: number;
    ct?: boolean;
    port?: number;
    d?: string;
  };
  return rule(t, {
    ...(o.d !== undefined ? { d: o.d } : {}),
    ...(o.port !== undefined ? { p: "tcp" } : {}),
    m: [
      ...(o.port !== undefined ? [tcpDport(o.port)] : []),
      ...(o.mark !== undefined ? [markIs(o.mark.bit, o.mark.negated)] : []),
      ...(o.ct !== undefined ? [ctstate(o.ct)] : []),
      ...(o.stat !== undefined ? [statistic(o.stat)] : []),
    ],
  });
}

const later = (sub: string): fc.Arbitrary<Target | undefined> =>
  fc.oneof(
    fc.constant(ACCEPT),
    fc.constant(DROP),
    fc.constant(REJECT),
    fc.constant(RETURN),
    fc.constant(undefined),
    fc.constantFrom(1, 2, 4).map(orMark),
    fc.constantFrom(1, 2).map(xorMark),
    fc.constant(jump(sub)),
    fc.constant(goto(sub)),
  );

const subTarget = fc.oneof(
  fc.constant(ACCEPT),
  fc.constant(DROP),
  fc.constant(RETURN),
  fc.constant(undefined),
  fc.constantFrom(1, 2, 4).map(orMark),
);

const rules = (t: fc.Arbitrary<Target | undefined>, max: number, c0: fc.Arbitrary<object>) =>
  fc.array(
    fc.tuple(t, c0).map(([tt, c]) => ruleOf(tt, c)),
    { maxLength: max },
  );

/** Two endpoints behind a 50 % split, forwarded (cbr0): branches with different packets. */
const splitOf = (endpoints: readonly string[]): readonly Rule[] => [
  rule(dnat(`${endpoints[0]}:8080`), { m: [statistic(0.5)] }),
  rule(dnat(`${endpoints[1]}:8080`)),
];

const ruleSetArbOf = (
  c0: fc.Arbitrary<object>,
  split: boolean,
  endpoints: readonly string[] = ENDPOINTS,
) =>
  fc
    .record({
      svc: fc.array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom(...endpoints).map((e) => dnat(`${e}:8080`)),
            fc.constantFrom(1, 2).map(orMark),
            fc.constant(jump("SEP")),
            fc.constant(goto("SEP")),
            fc.constant(RETURN),
          ),
          cond,
        ),
        { minLength: 1, maxLength: 12 },
      ),
      sep: rules(
        fc.oneof(
          fc.constantFrom(...endpoints).map((e) => dnat(`${e}:80`)),
          subTarget,
        ),
        4,
        c0,
      ),
      forward: rules(later("F1"), 8, c0),
      f1: rules(subTarget, 4, c0),
      output: rules(later("F1"), 6, c0),
      post: fc.array(
        fc.tuple(fc.oneof(fc.constant(MASQUERADE), later("P1")), c0).map(([t, c]) => ruleOf(t, c)),
        { maxLength: 6 },
      ),
      p1: rules(fc.oneof(fc.constant(MASQUERADE), subTarget), 3, c0),
      policy: fc.constantFrom("ACCEPT" as const, "DROP" as const),
    })
    .map((g) =>
      ruleSet([
        table("nat", [
          chain("PREROUTING", [rule(jump("SVC"))], "ACCEPT"),
          chain("OUTPUT", [rule(jump("SVC"))], "ACCEPT"),
          chain("POSTROUTING", g.post, "ACCEPT"),
          chain("SVC", [
            ...(split ? splitOf(endpoints) : []),
            ...g.svc.map(([t, c]) => ruleOf(t, c)),
          ]),
          chain("SEP", g.sep),
          chain("P1", g.p1),
          // Named as a chain of the other table, and never jumped to here: a jump resolved in
          // the wrong table meets a different chain.
          chain("F1", [rule(orMark(4)), rule(ACCEPT)]),
        ]),
        table("filter", [
          chain("FORWARD", g.forward, g.policy),
          chain("OUTPUT", g.output, g.policy),
          chain("INPUT", g.forward, "ACCEPT"),
          chain("F1", g.f1),
          chain("SEP", [rule(DROP)]),
          chain("P1", [rule(orMark(4)), rule(DROP)]),
        ]),
      ]),
    );

const interfaces = [
  { name: "lo", addresses: ["127.0.0.1/8"] },
  { name: "eth0", addresses: ["192.168.0.2/24"] },
  { name: "cbr0", addresses: ["10.1.0.1/16"] },
];

/**
 * A node where endpoints leave by one interface with different MASQUERADE sources (two
 * prefixes on cbr0), through a gateway (eth0), or are local: the rest of the plan after a
 * DNAT is shared between branches only where the route and that source agree.
 */
const ROUTED_ENDPOINTS = ["10.1.0.5", "10.2.0.5", "172.31.0.9", "192.168.0.7", "192.168.0.2"];
const routedNode = {
  interfaces: [
    { name: "lo", addresses: ["127.0.0.1/8"] },
    { name: "eth0", addresses: ["192.168.0.2/24"] },
    { name: "cbr0", addresses: ["10.1.0.1/16", "10.2.0.1/16"] },
  ],
  routes: [{ dst: "172.31.0.0/16", gateway: "192.168.0.254" }],
};

/** `rs` with a MASQUERADE for every packet left at the end of nat POSTROUTING. */
function masqueradingRest(rs: RuleSet): RuleSet {
  return {
    ...rs,
    tables: rs.tables.map((t) =>
      t.name !== "nat"
        ? t
        : {
            ...t,
            chains: t.chains.map((c) =>
              c.name === "POSTROUTING" ? { ...c, rules: [...c.rules, rule(MASQUERADE)] } : c,
            ),
          },
    ),
  };
}

function sameAsNaive(
  rs: RuleSet,
  src: string,
  dst: string,
  dport: number,
  explain: boolean,
  node: Pick<Parameters<typeof buildDataplane>[0], "interfaces" | "routes"> = { interfaces },
): void {
  const dp = buildDataplane({ ruleSets: [rs], ...node });
  const packet = { proto: "tcp" as const, src, dst, dport };
  const fast = trace(dp, packet, { indexed: true, explain });
  const slow = trace(dp, packet, { indexed: false, explain });
  expect(fast).toEqual(slow);
  // The JSON form (key order included) is what the CLI prints.
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
}

describe("the optimized indexed walk", () => {
  it.prop(
    [
      ruleSetArbOf(laterCond, true),
      fc.constantFrom("203.0.113.2", "192.168.0.2", "10.1.0.9"),
      fc.constantFrom("172.30.0.1", "10.1.0.5", "192.168.0.2"),
      fc.constantFrom(80, 81),
      fc.boolean(),
    ],
    { numRuns: 150 },
  )(
    "gives the naive walk's results on rule sets with branches, marks, goto and RETURN",
    sameAsNaive,
  );

  it.prop(
    [
      ruleSetArbOf(markCond, true),
      fc.constantFrom("203.0.113.2", "192.168.0.2"),
      fc.constantFrom(80, 81),
      fc.boolean(),
    ],
    { numRuns: 150 },
  )(
    "gives the naive walk's results when branches with different endpoints share FORWARD and POSTROUTING walks",
    (rs, src, dport, explain) => sameAsNaive(rs, src, "172.30.0.1", dport, explain),
  );

  it.prop(
    [
      ruleSetArbOf(laterCond, true, ROUTED_ENDPOINTS).map(masqueradingRest),
      fc.constantFrom("203.0.113.2", "192.168.0.2", "10.2.0.9"),
      fc.constantFrom("172.30.0.1", "10.2.0.5"),
      fc.constantFrom(80, 81),
    ],
    { numRuns: 150, seed: 17 },
  )(
    "gives the naive walk's results when branches route differently or masquerade to different addresses",
    (rs, src, dst, dport) => sameAsNaive(rs, src, dst, dport, false, routedNode),
  );
});

describe("packet addresses", () => {
  const octet = fc.oneof(
    fc.integer({ min: 0, max: 300 }).map(String),
    fc.integer({ min: 0, max: 99 }).map((n) => `0${n}`),
    fc.constantFrom("", "x", "1e1", " 1"),
  );
  it.prop([fc.array(octet, { minLength: 3, maxLength: 5 })])(
    "the dotted-quad fast path reads and prints what parseIP and formatIP do",
    (octets) => {
      const text = octets.join(".");
      const expected = parseIP(text, "lenient");
      const spec = { proto: "tcp" as const, src: text, dst: text, dport: 80 };
      if (expected === undefined) {
        expect(() => parsePacketSpec(spec)).toThrow(TraceInputError);
        return;
      }
      const { packet, printed } = parsePacketSpec(spec);
      expect(packet.src).toEqual(expected);
      expect(packet.dst).toEqual(expected);
      expect(printed.src).toBe(formatIP(expected));
      expect(printed.dst).toBe(formatIP(expected));
    },
  );
});
