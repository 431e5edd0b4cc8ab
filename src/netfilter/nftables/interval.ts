/**
 * Address intervals as the kernel keeps them in an interval set: elements become ranges, sorted,
 * and overlapping or adjacent ranges merge (nft 1.0.6 prints `10.0.0.0/24, 10.0.1.0/24` back as
 * `10.0.0.0/23`). A range prints as a prefix when it is one, else as `first-last`.
 */
import {
  bitLength,
  formatIP,
  ipv4,
  ipv6,
  parseCIDR,
  parseIP,
  type IPAddress,
  type IPFamily,
} from "../../net/index.js";

interface Range {
  readonly lo: bigint;
  readonly hi: bigint;
}

function toBig(a: IPAddress): bigint {
  return a.family === "IPv4" ? BigInt(a.value) : a.value;
}

function fromBig(v: bigint, family: IPFamily): IPAddress {
  return family === "IPv4" ? ipv4(Number(v)) : ipv6(v);
}

/** A range for `text` (address, CIDR or `a-b`), or undefined if it is none of those. */
export function parseRange(text: string): { family: IPFamily; range: Range } | undefined {
  const dash = text.indexOf("-");
  if (dash > 0) {
    const a = parseIP(text.slice(0, dash), "strict");
    const b = parseIP(text.slice(dash + 1), "strict");
    if (a === undefined || b === undefined || a.family !== b.family) return undefined;
    return { family: a.family, range: { lo: toBig(a), hi: toBig(b) } };
  }
  if (text.includes("/")) {
    const c = parseCIDR(text, "strict");
    if (c === undefined) return undefined;
    const bits = BigInt(bitLength(c.family) - c.prefix);
    const lo = toBig(c.network);
    return { family: c.family, range: { lo, hi: lo + (1n << bits) - 1n } };
  }
  const a = parseIP(text, "strict");
  if (a === undefined) return undefined;
  return { family: a.family, range: { lo: toBig(a), hi: toBig(a) } };
}

export function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0));
  const out: Range[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && r.lo <= last.hi + 1n) {
      if (r.hi > last.hi) out[out.length - 1] = { lo: last.lo, hi: r.hi };
    } else out.push(r);
  }
  return out;
}

export function formatRange(r: Range, family: IPFamily): string {
  const width = BigInt(bitLength(family));
  if (r.lo === r.hi) return formatIP(fromBig(r.lo, family));
  const size = r.hi - r.lo + 1n;
  const isPow2 = (size & (size - 1n)) === 0n;
  if (isPow2 && r.lo % size === 0n) {
    let bits = 0n;
    while (1n << bits < size) bits++;
    return `${formatIP(fromBig(r.lo, family))}/${width - bits}`;
  }
  return `${formatIP(fromBig(r.lo, family))}-${formatIP(fromBig(r.hi, family))}`;
}

/** The elements of an address interval set as nft lists them; undefined if one is no address. */
export function canonicalIntervals(elements: readonly string[]): string[] | undefined {
  const parsed = elements.map(parseRange);
  const family = parsed[0]?.family;
  if (family === undefined) return undefined;
  const ranges: Range[] = [];
  for (const p of parsed) {
    if (p === undefined || p.family !== family) return undefined;
    ranges.push(p.range);
  }
  return mergeRanges(ranges).map((r) => formatRange(r, family));
}
