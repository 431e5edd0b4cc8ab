/**
 * `-m limit [--limit N/UNIT] [--limit-burst B]`: a token bucket that starts full, so the packet a
 * trace follows (one packet) always finds a token. The rate is kept as the kernel's period
 * (`10000 * seconds-per-unit / N`) because that is what the save form prints back.
 */
import { fail, outcome, single, type MatchExtension } from "./extension.js";
import { parseUint } from "./values.js";

export interface LimitMatch {
  readonly module: "limit";
  /** Period between tokens in 1/10000 s (`XT_LIMIT_SCALE`). Default 3/hour. */
  readonly avg: number;
  readonly burst: number;
}

const SCALE = 10000;
const UNITS: readonly (readonly [string, number])[] = [
  ["second", 1],
  ["minute", 60],
  ["hour", 3600],
  ["day", 86400],
];
const PRINT: readonly (readonly [string, number])[] = [
  ["day", SCALE * 86400],
  ["hour", SCALE * 3600],
  ["min", SCALE * 60],
  ["sec", SCALE],
];

function parseRate(s: string): number {
  const slash = s.indexOf("/");
  let mult = 1;
  if (slash !== -1) {
    const unit = s.slice(slash + 1).toLowerCase();
    const u = unit === "" ? undefined : UNITS.find(([n]) => n.startsWith(unit));
    if (u === undefined) fail(`limit: bad rate "${s}"`);
    mult = u[1];
  }
  // strtoul in base 10: blanks and a `+` may lead (checked on the kernel: ` 5/m`, `+5/m`).
  const numText = (slash === -1 ? s : s.slice(0, slash)).replace(/^[ \t\n\v\f\r]*\+?/, "");
  if (!/^[0-9]+$/.test(numText) || Number(numText) === 0) fail(`limit: bad rate "${s}"`);
  const avg = Math.floor((SCALE * mult) / Number(numText));
  if (avg === 0) fail(`limit: rate too fast "${s}"`);
  return avg;
}

export function formatRate(period: number): string {
  let i = 1;
  for (; i < PRINT.length; i++) {
    const mult = (PRINT[i] as readonly [string, number])[1];
    if (period > mult || Math.floor(mult / period) < mult % period) break;
  }
  const [name, mult] = PRINT[i - 1] as readonly [string, number];
  return `${Math.floor(mult / period)}/${name}`;
}

const DEFAULT_BURST = 5;

/**
 * nf_tables takes a packet burst of 0 as its default of 5 (NFT_LIMIT_PKT_BURST_DEFAULT), so
 * iptables-nft saves `--limit-burst 0` back without it (checked with iptables-nft 1.8.9; the
 * legacy kernel module refuses 0 instead).
 */
function burstOf(b: number): number {
  return b === 0 ? DEFAULT_BURST : b;
}

export const limitMatch: MatchExtension<LimitMatch> = {
  module: "limit",
  options: {
    "--limit": { args: 1, negatable: false },
    "--limit-burst": { args: 1, negatable: false },
  },
  build(options) {
    const o = single(options, "limit");
    const l = o.get("--limit");
    const b = o.get("--limit-burst");
    return {
      module: "limit",
      avg: l === undefined ? parseRate("3/hour") : parseRate(l.args[0] as string),
      burst: burstOf(
        b === undefined
          ? DEFAULT_BURST
          : parseUint(b.args[0] as string, 10000, "limit --limit-burst"),
      ),
    };
  },
  format: (m) =>
    `--limit ${formatRate(m.avg)}${m.burst !== DEFAULT_BURST ? ` --limit-burst ${m.burst}` : ""}`,
  reads: () => 0,
  evaluate: (m) => outcome(m.burst > 0),
};
