/**
 * `-m statistic --mode random [!] --probability P` and `--mode nth [!] --every N [--packet P]`.
 *
 * The kernel stores the probability as the 31-bit integer `lround(P * 2^31)` and matches when a
 * random 31-bit number is below it, so the true probability is that integer / 2^31, not P; the
 * save form prints it back with `%.11f`. `nth` is a per-rule packet counter: over a cycle of N
 * packets exactly one matches, which is what `evaluate` reports (a branch of 1/N).
 */
import {
  constantCheck,
  fail,
  MATCH,
  NEG_ARG,
  NO_MATCH,
  single,
  type MatchExtension,
} from "./extension.js";
import type { MatchOutcome } from "../model.js";
import { parseCDouble, parseUint } from "./values.js";

export type StatisticMatch =
  | {
      readonly module: "statistic";
      readonly mode: "random";
      /** The probability as written. */
      readonly probability: number;
      readonly negated: boolean;
    }
  | {
      readonly module: "statistic";
      readonly mode: "nth";
      readonly every: number;
      readonly packet: number;
      readonly negated: boolean;
    };

const TWO_31 = 2147483648;

/** The kernel's threshold: `lround(P * 2^31)`. */
export function probabilityThreshold(p: number): number {
  return Math.round(p * TWO_31);
}

/** The probability the kernel actually applies for a written P. */
export function kernelProbability(p: number): number {
  return probabilityThreshold(p) / TWO_31;
}

/** `printf("%.11f", threshold / 2^31)` exactly (round half to even on the exact binary value). */
export function formatProbability(p: number): string {
  const t = BigInt(probabilityThreshold(p));
  const scaled = t * 100000000000n;
  const den = BigInt(TWO_31);
  let q = scaled / den;
  const r = scaled % den;
  if (r * 2n > den || (r * 2n === den && q % 2n === 1n)) q += 1n;
  const s = q.toString().padStart(12, "0");
  return `${s.slice(0, s.length - 11)}.${s.slice(s.length - 11)}`;
}

function branch(p: number): MatchOutcome {
  if (p <= 0) return NO_MATCH;
  if (p >= 1) return MATCH;
  return { kind: "branch", probability: p };
}

/** The probability the match holds for a packet. */
function holdsWith(m: StatisticMatch): number {
  const p = m.mode === "random" ? kernelProbability(m.probability) : 1 / m.every;
  return m.negated ? 1 - p : p;
}

export const statisticMatch: MatchExtension<StatisticMatch> = {
  module: "statistic",
  options: {
    "--mode": { args: 1, negatable: false },
    "--probability": NEG_ARG,
    "--every": NEG_ARG,
    "--packet": { args: 1, negatable: false },
  },
  build(options) {
    const o = single(options, "statistic");
    const mode = o.get("--mode");
    if (mode === undefined) fail(`statistic: no --mode given`);
    const m = mode.args[0];
    if (m === "random") {
      const p = o.get("--probability");
      if (p === undefined) fail(`statistic: --probability is required in random mode`);
      if (o.has("--every") || o.has("--packet"))
        fail(`statistic: --every and --packet are for nth mode`);
      const text = p.args[0] as string;
      const v = parseCDouble(text);
      // libxt_statistic refuses only a value below 0 or above 1: NaN passes, and the kernel
      // stores it as 0 (iptables-nft 1.8.9 saves `nan` as 0.00000000000).
      if (v === undefined || v < 0 || v > 1)
        fail(`statistic: --probability must be between 0 and 1, got "${text}"`);
      const probability = Number.isNaN(v) ? 0 : v;
      return { module: "statistic", mode: "random", probability, negated: p.negated };
    }
    if (m === "nth") {
      const e = o.get("--every");
      if (e === undefined) fail(`statistic: --every is required in nth mode`);
      if (o.has("--probability")) fail(`statistic: --probability is for random mode`);
      const every = parseUint(e.args[0] as string, 0xffffffff, "statistic --every");
      if (every === 0) fail(`statistic: --every must be larger than 0`);
      const pk = o.get("--packet");
      // libxt_statistic 1.8.9: 'option "--every" also requires "--packet"'.
      if (pk === undefined) fail(`statistic: option "--every" also requires "--packet"`);
      const packet = parseUint(pk.args[0] as string, 0xffffffff, "statistic --packet");
      if (packet > every - 1) fail(`statistic: --packet must be between 0 and --every - 1`);
      return { module: "statistic", mode: "nth", every, packet, negated: e.negated };
    }
    return fail(`statistic: bad mode "${m}"`);
  },
  format(m) {
    const n = m.negated ? "! " : "";
    if (m.mode === "random")
      return `--mode random ${n}--probability ${formatProbability(m.probability)}`;
    return `--mode nth ${n}--every ${m.every} --packet ${m.packet}`;
  },
  // Its outcome depends on the rule alone.
  reads: () => 0,
  compile(m) {
    // The outcome depends on the rule alone: decided once.
    const h = holdsWith(m);
    return constantCheck(h <= 0 ? 0 : h >= 1 ? 1 : h);
  },
  evaluate: (m) => branch(holdsWith(m)),
};
