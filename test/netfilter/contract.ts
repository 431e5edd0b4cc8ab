/**
 * The contract every extension passes: canonical rule text is a fixed point of
 * format(parse(x)); bad options are errors naming the problem; evaluate is total and agrees
 * with the listed cases. Canonical lines are kernel spellings (iptables-save output).
 */
import { describe, expect, test } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { ipv4, ipv6, type IPFamily } from "../../src/net/index.js";
import {
  evaluateMatch,
  formatIptablesSave,
  parseIptables,
  type EvalContext,
  type MatchOutcome,
  type Packet,
  type Rule,
} from "../../src/netfilter/index.js";

export interface ExtensionCases {
  readonly family?: IPFamily;
  readonly table?: string;
  /** Rule bodies (after `-A X`) in canonical form. */
  readonly canonical: readonly string[];
  /** Restore spellings and the canonical body each becomes. */
  readonly normalizes?: readonly (readonly [string, string])[];
  /** Bodies that must be rejected, with a fragment of the message. */
  readonly invalid: readonly (readonly [string, string])[];
  /** Body, packet overrides, expected outcome of the rule's matches (first match). */
  readonly evaluate?: readonly (readonly [
    string,
    Partial<Packet>,
    MatchOutcome["kind"] | number,
  ])[];
}

export function wrap(body: string, table = "filter"): string {
  return `*${table}\n:X - [0:0]\n${body === "" ? "-A X" : `-A X ${body}`}\nCOMMIT\n`;
}

export function parseRule(body: string, family: IPFamily = "IPv4", table = "filter"): Rule {
  const rs = parseIptables(wrap(body, table), { family });
  const x = rs.tables[0]?.chains.find((c) => c.name === "X");
  return x?.rules[0] as Rule;
}

export function bodyOf(text: string): string {
  const line = text.split("\n").find((l) => l.startsWith("-A X"));
  return (line ?? "").slice("-A X ".length);
}

export function packet(family: IPFamily, over: Partial<Packet> = {}): Packet {
  return {
    family,
    protocol: "tcp",
    src: family === "IPv4" ? ipv4(0x0a000002) : ipv6((0xfd00n << 112n) | 2n),
    sport: 40000,
    dst: family === "IPv4" ? ipv4(0xac1e0029) : ipv6((0xfd00n << 112n) | 0x41n),
    dport: 80,
    inInterface: "eth0",
    outInterface: "",
    mark: 0,
    connmark: 0,
    ctState: ["NEW"],
    fragment: false,
    ...over,
  };
}

export const ctx: EvalContext = {
  hook: "PREROUTING",
  table: "filter",
  addrType: (ip) => (ip.family === "IPv4" && ip.value === 0xac1e0029 ? "LOCAL" : "UNICAST"),
  ipsetTest: (name) => (name === "present" ? true : name === "absent" ? false : undefined),
  recentSeen: (name) => name === "seen",
  nfacctExists: (name) => name === "exists",
};

export function extensionContract(name: string, cases: ExtensionCases): void {
  const family = cases.family ?? "IPv4";
  const table = cases.table ?? "filter";
  describe(`${name} extension`, () => {
    if (cases.canonical.length > 0)
      test.each(cases.canonical)("canonical %s is a fixed point of format(parse(x))", (body) => {
        expect(bodyOf(formatIptablesSave(parseIptables(wrap(body, table), { family })))).toBe(body);
      });
    if (cases.normalizes !== undefined && cases.normalizes.length > 0)
      test.each(cases.normalizes)("%s prints as %s", (input, out) => {
        expect(bodyOf(formatIptablesSave(parseIptables(wrap(input, table), { family })))).toBe(out);
      });
    test.each(cases.invalid)("rejects %s", (body, message) => {
      expect(() => parseIptables(wrap(body, table), { family, file: "f" })).toThrow(message);
    });
    if (cases.evaluate !== undefined && cases.evaluate.length > 0)
      test.each(cases.evaluate)("evaluate %s on %o", (body, over, want) => {
        const rule = parseRule(body, family, table);
        const m = rule.matches[0];
        if (m === undefined) throw new Error("no match in rule");
        const got = evaluateMatch(m, packet(family, over), ctx);
        if (typeof want === "number") expect(got).toEqual({ kind: "branch", probability: want });
        else expect(got.kind).toBe(want);
      });
    // Only where the canonical rules hold matches (a target's rules have none: nothing to run).
    const rules = cases.canonical.map((b) => parseRule(b, family, table));
    if (rules.some((r) => r.matches.length > 0))
      test("evaluate is total over random packets", () => {
        fc.assert(
          fc.property(
            fc.record({
              protocol: fc.constantFrom("tcp", "udp", "sctp", "icmp", "icmpv6"),
              sport: fc.integer({ min: 0, max: 65535 }),
              dport: fc.integer({ min: 0, max: 65535 }),
              mark: fc.integer({ min: 0, max: 0xffffffff }),
              connmark: fc.integer({ min: 0, max: 0xffffffff }),
              fragment: fc.boolean(),
              ctState: fc.subarray(["NEW", "ESTABLISHED", "RELATED", "INVALID", "DNAT"] as const),
              icmpType: fc.integer({ min: 0, max: 255 }),
            }),
            (over) => {
              for (const r of rules)
                for (const m of r.matches) {
                  const o = evaluateMatch(m, packet(family, over), ctx);
                  expect(["match", "no-match", "branch"]).toContain(o.kind);
                  if (o.kind === "branch")
                    expect(o.probability > 0 && o.probability < 1).toBe(true);
                }
            },
          ),
          { numRuns: 50 },
        );
      });
  });
}
