import { describe, expect, test } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { endpointProbability, formatFixed10 } from "../../../src/proxiers/iptables/probability.js";

describe("endpointProbability (Go %0.10f of 1/n)", () => {
  // Upstream TestComputeProbability, plus the round-half-even tie of spec §4.8.
  test.each([
    [1, "1.0000000000"],
    [2, "0.5000000000"],
    [3, "0.3333333333"],
    [6, "0.1666666667"],
    [10, "0.1000000000"],
    [100, "0.0100000000"],
    [1000, "0.0010000000"],
    [10000, "0.0001000000"],
    [100000, "0.0000100000"],
    [100001, "0.0000099999"],
    [2048, "0.0004882812"],
  ])("n=%d -> %s", (n, expected) => {
    expect(endpointProbability(n)).toBe(expected);
  });

  test("agrees with toFixed wherever the double is not a decimal tie", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200000 }), (n) => {
        const x = 1 / n;
        // A tie needs the 11th+ digits to be exactly 5000…: only when x*1e10 has fraction .5.
        const frac = (x * 1e10) % 1;
        fc.pre(Math.abs(frac - 0.5) > 1e-6);
        expect(formatFixed10(x)).toBe(x.toFixed(10));
      }),
      { numRuns: 300 },
    );
  });
});
