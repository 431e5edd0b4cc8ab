/**
 * Issue 19 items 8 and 9: the walk does not depend on the JS stack (long runs of jumps and
 * returns), merges branches that can no longer differ (n statistic MARK rules: one outcome,
 * exactly), and stops with a clear error naming the rules that branch or jump when the space is
 * still too large (docs/trace.md, "Budget").
 */
import { describe, expect, test } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { parseIptables } from "../../../src/netfilter/index.js";
import {
  buildDataplane,
  trace,
  TraceError,
  type TraceResult,
} from "../../../src/netfilter/trace/index.js";

const interfaces = [
  { name: "lo", addresses: ["127.0.0.1/8"] },
  { name: "eth0", addresses: ["192.168.0.2/24"] },
];

function node(text: string) {
  return buildDataplane({ ruleSets: [parseIptables(text)], interfaces });
}

const packet = { proto: "tcp" as const, src: "203.0.113.7", dst: "192.168.0.2", dport: 80 };

function nat(lines: readonly string[], chains: readonly string[] = []): string {
  return [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":INPUT ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
    ...chains.map((c) => `:${c} - [0:0]`),
    ...lines,
    "COMMIT",
    "",
  ].join("\n");
}

/** Every way of tracing: explained and not, indexed and naive, with and without the flow cache. */
function everyWay(text: string, spec = packet): TraceResult[] {
  const dp = node(text);
  return [
    trace(dp, spec),
    trace(dp, spec, { explain: false }),
    trace(dp, spec, { explain: false, flowCache: false }),
    trace(dp, spec, { indexed: false }),
  ];
}

describe("the walk does not depend on the JS stack", () => {
  test.each([1500, 10000])("%i consecutive jump-and-return rules", (n) => {
    const lines = [
      "-A PREROUTING -j MANY",
      ...Array.from({ length: n }, () => "-A MANY -j BACK"),
      "-A MANY -j MARK --set-xmark 0x1/0xffffffff",
      "-A BACK -j RETURN",
    ];
    const results = everyWay(nat(lines, ["MANY", "BACK"]));
    expect.hasAssertions();
    for (const r of results) {
      expect(r.outcomes).toHaveLength(1);
      expect(r.outcomes[0]!.probability).toBe(1);
      expect(r.outcomes[0]!.mark).toBe("0x1");
      // Each jump and each RETURN is a rule taken.
      expect(r.outcomes[0]!.path).toHaveLength(2 + 2 * n);
    }
  });
});

const statMark = (i: number, mark: string) =>
  `-A PREROUTING -m statistic --mode random --probability 0.5 -m comment --comment r${i} -j MARK --set-xmark ${mark}`;

describe("equivalent branches are merged", () => {
  test.each([20, 40, 200])("%i statistic MARK rules setting one bit: one outcome", (n) => {
    const lines = Array.from({ length: n }, (_, i) => statMark(i, "0x4000/0x4000"));
    const results = everyWay(nat(lines));
    expect.hasAssertions();
    for (const r of results) {
      expect(r.outcomes).toHaveLength(1);
      expect(r.outcomes[0]!.mark).toBe("0x4000");
      // Exactly 1 while the shares (multiples of 2^-n) add up without rounding.
      if (n <= 53) expect(r.outcomes[0]!.probability).toBe(1);
      else expect(r.outcomes[0]!.probability).toBeCloseTo(1, 12);
    }
  });

  test("the outcome's path is the depth-first walk's first branch", () => {
    const n = 40;
    const lines = Array.from({ length: n }, (_, i) => statMark(i, "0x4000/0x4000"));
    const [explained] = everyWay(nat(lines));
    // The first branch takes every split: every rule is on its path.
    expect(explained!.outcomes[0]!.path).toEqual(
      Array.from({ length: n }, (_, i) => `nat/PREROUTING#${i + 1}`),
    );
  });

  // A small count of rules, each setting a bit from a small set with some probability: the
  // outcome distribution (by final mark, through a filter rule per mark value) equals the one
  // computed by enumerating every combination of choices, before and after merging kicks in.
  it.prop(
    [
      fc.array(
        fc.record({
          bit: fc.constantFrom(1, 2, 4),
          p: fc.constantFrom(0.5, 0.25, 0.3, 0.75),
          op: fc.constantFrom("or", "xor"),
        }),
        { minLength: 1, maxLength: 14 },
      ),
    ],
    { numRuns: 40, seed: 19 },
  )("merged walks give the enumerated distribution", (spec) => {
    const lines = spec.map(
      (r, i) =>
        `-A PREROUTING -m statistic --mode random --probability ${r.p} -m comment --comment r${i} -j MARK --${r.op}-mark 0x${r.bit.toString(16)}`,
    );
    // Each final mark value leads to its own DNAT destination, so it is its own outcome.
    const text = nat([
      ...lines,
      ...Array.from(
        { length: 8 },
        (_, m) =>
          `-A PREROUTING -p tcp -m mark --mark 0x${m}/0x7 -j DNAT --to-destination 10.0.0.${m}:80`,
      ),
    ]);
    // Enumerate every choice.
    let dist = new Map<number, number>([[0, 1]]);
    for (const r of spec) {
      const next = new Map<number, number>();
      for (const [mark, pr] of dist) {
        const taken = r.op === "or" ? mark | r.bit : mark ^ r.bit;
        next.set(taken, (next.get(taken) ?? 0) + pr * r.p);
        next.set(mark, (next.get(mark) ?? 0) + pr * (1 - r.p));
      }
      dist = next;
    }
    expect.hasAssertions();
    for (const r of everyWay(text)) {
      const got = new Map(
        r.outcomes.map((o) => [Number(o.destination!.split(":")[0]!.split(".")[3]), o.probability]),
      );
      expect([...got.keys()].sort()).toEqual(
        [...dist.keys()].filter((m) => dist.get(m)! > 0).sort(),
      );
      // statistic draws against a 32-bit threshold: 0.3 is 0.3 to about 1e-10.
      for (const [mark, pr] of dist) expect(got.get(mark)).toBeCloseTo(pr, 8);
    }
  });
});

describe("the budget", () => {
  test("more distinct branches than the budget: an error naming the rules that branch", () => {
    // Each rule flips its own bit: 2^20 distinct marks, nothing to merge.
    const lines = Array.from({ length: 20 }, (_, i) =>
      statMark(i, `0x${(1 << i).toString(16)}/0x${(1 << i).toString(16)}`),
    );
    const dp = node(nat(lines));
    for (const opts of [{}, { explain: false }]) {
      expect(() => trace(dp, packet, opts)).toThrow(TraceError);
      expect(() => trace(dp, packet, opts)).toThrow(
        /nat\/PREROUTING: .*more than 4096 distinct branches.*rules that branch: nat\/PREROUTING#1, nat\/PREROUTING#2/,
      );
    }
  });

  test("a 12-level x 4-chain jump graph: an error naming the jumps, not a hang", () => {
    const levels = 12;
    const chains: string[] = [];
    const lines = ["-A PREROUTING -j L0A"];
    const names = (l: number) => ["A", "B", "C", "D"].map((c) => `L${l}${c}`);
    for (let l = 0; l < levels; l++)
      for (const c of names(l)) {
        chains.push(c);
        if (l + 1 < levels) for (const d of names(l + 1)) lines.push(`-A ${c} -j ${d}`);
        else lines.push(`-A ${c} -j MARK --set-xmark 0x1/0x1`);
      }
    const dp = node(nat(lines, chains));
    expect.hasAssertions();
    for (const opts of [{}, { explain: false }]) {
      let error: unknown;
      try {
        trace(dp, packet, opts);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TraceError);
      expect((error as Error).message).toMatch(
        /^nat\/PREROUTING: the walk visits more than 500000 rules .*inside the jumps nat\/PREROUTING#1, nat\/L0A#1/,
      );
    }
  });
});
