/**
 * `outcomeRecord` writes the usual outcome shapes as object literals (outcomes.ts): for every
 * combination of the optional properties it must give the object that adding them one by one
 * in the JSON contract's order gives, keys in the same order (the printed output depends on it).
 * `verdictOnly` is the verdict step alone for every verdict and delivery.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import {
  grownOutcome as grown,
  outcomeRecord,
  verdictOnly,
  type OutcomeFields,
} from "../../../src/netfilter/trace/outcomes.js";
import type {
  ConntrackEntry,
  Delivery,
  TraceVerdict,
} from "../../../src/netfilter/trace/result.js";

const conntrack: fc.Arbitrary<ConntrackEntry> = fc.record({
  proto: fc.constantFrom("tcp" as const, "udp" as const),
  family: fc.constantFrom("IPv4" as const, "IPv6" as const),
  original: fc.record({
    src: fc.ipV4(),
    sport: fc.nat({ max: 65535 }),
    dst: fc.ipV4(),
    dport: fc.nat({ max: 65535 }),
  }),
  reply: fc.record({
    src: fc.ipV4(),
    sport: fc.nat({ max: 65535 }),
    dst: fc.ipV4(),
    dport: fc.nat({ max: 65535 }),
  }),
  dnat: fc.boolean(),
  snat: fc.boolean(),
  mark: fc.nat(),
});

const fields: fc.Arbitrary<OutcomeFields> = fc.record({
  verdict: fc.constantFrom<TraceVerdict>("DNAT", "ACCEPT", "NONE", "DROP", "REJECT"),
  destination: fc.option(fc.string(), { nil: undefined }),
  masquerade: fc.boolean(),
  probability: fc.double({ min: 0, max: 1, noNaN: true }),
  path: fc.array(fc.string(), { maxLength: 4 }),
  mark: fc.string(),
  source: fc.option(fc.string(), { nil: undefined }),
  sourcePorts: fc.option(fc.string(), { nil: undefined }),
  delivery: fc.constantFrom<Delivery>("local", "forward", "stopped", "ipvs"),
  conntrack: fc.option(conntrack, { nil: undefined }),
});

describe("outcomeRecord", () => {
  it.prop([fields], { numRuns: 200 })(
    "is the outcome grown property by property, keys in the same order",
    (f) => {
      const fast = outcomeRecord(f);
      const general = grown(f);
      expect(fast).toStrictEqual(general);
      expect(Object.keys(fast)).toEqual(Object.keys(general));
      expect(JSON.stringify(fast)).toBe(JSON.stringify(general));
    },
  );
});

describe("verdictOnly", () => {
  it.prop([fields.map((f) => f.verdict), fields.map((f) => f.delivery)])(
    "is the verdict step alone, for every verdict and delivery",
    (verdict, where) => {
      const steps = verdictOnly(verdict, where);
      expect(steps).toStrictEqual([{ kind: "verdict", verdict, where }]);
      // One shared list per pair.
      expect(verdictOnly(verdict, where)).toBe(steps);
    },
  );
});
