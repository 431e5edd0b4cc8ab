/**
 * IP addresses as numbers: IPv4 is a uint32 `number`, IPv6 a 128-bit `bigint`.
 *
 * Parsing has two strengths, because Kubernetes has two:
 * - `strict` is what the API server's validation accepts for new objects: dotted-quad IPv4
 *   without leading zeros, IPv6 per RFC 4291 (embedded dotted-quad allowed in the last 32 bits),
 *   and no IPv4-mapped IPv6 (`::ffff:1.2.3.4`), which Kubernetes rejects as ambiguous.
 * - `lenient` is what kube-proxy's `netutils.ParseIPSloppy` accepts: leading zeros are read as
 *   decimal (never octal), and IPv4-mapped IPv6 is folded to its IPv4 address.
 * Printing follows RFC 5952 (lower case, longest zero run compressed, first on a tie, no
 * compression of a single zero group), which is also what Go's net.IP.String prints.
 */

export type IPFamily = "IPv4" | "IPv6";

export interface IPv4Address {
  readonly family: "IPv4";
  readonly value: number;
}
export interface IPv6Address {
  readonly family: "IPv6";
  readonly value: bigint;
}
export type IPAddress = IPv4Address | IPv6Address;

export type ParseMode = "strict" | "lenient";

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

export function ipv4(value: number): IPv4Address {
  return { family: "IPv4", value: value >>> 0 };
}
export function ipv6(value: bigint): IPv6Address {
  return { family: "IPv6", value: BigInt.asUintN(128, value) };
}

/**
 * Parses a dotted quad into a uint32, or undefined. Four octets of one to three digits, at most
 * 255; `strict` refuses a leading zero (`010`). Read character by character: the loader checks
 * every endpoint address, and splitting each one into strings costs more than the check.
 */
export function parseIPv4Value(s: string, mode: ParseMode = "strict"): number | undefined {
  let value = 0;
  let octets = 0;
  let i = 0;
  while (i <= s.length) {
    const start = i;
    let n = 0;
    for (let c = s.charCodeAt(i); c >= 0x30 && c <= 0x39; c = s.charCodeAt(++i))
      n = n * 10 + c - 0x30;
    const digits = i - start;
    if (digits === 0 || digits > 3 || n > 255) return undefined;
    if (mode === "strict" && digits > 1 && s.charCodeAt(start) === 0x30) return undefined;
    value = value * 256 + n;
    octets++;
    if (i === s.length) return octets === 4 ? value : undefined;
    if (s.charCodeAt(i) !== 0x2e || octets === 4) return undefined;
    i++;
  }
  return undefined;
}

/** Parses IPv6 text into a 128-bit value, or undefined. */
export function parseIPv6Value(s: string, mode: ParseMode = "strict"): bigint | undefined {
  if (s.length === 0 || s.includes("%")) return undefined;
  const dbl = s.indexOf("::");
  if (dbl !== -1 && s.indexOf("::", dbl + 1) !== -1) return undefined;
  const head = dbl === -1 ? s : s.slice(0, dbl);
  const tail = dbl === -1 ? "" : s.slice(dbl + 2);
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === "" ? [] : tail.split(":");
  const groups: number[] = [];
  const readGroups = (list: string[], isLastPart: boolean): number[] | undefined => {
    const out: number[] = [];
    for (let i = 0; i < list.length; i++) {
      const g = list[i] as string;
      if (isLastPart && i === list.length - 1 && g.includes(".")) {
        const v4 = parseIPv4Value(g, mode);
        if (v4 === undefined) return undefined;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else {
        if (!HEX_GROUP.test(g)) return undefined;
        out.push(parseInt(g, 16));
      }
    }
    return out;
  };
  const h = readGroups(headGroups, dbl === -1);
  const t = readGroups(tailGroups, true);
  if (h === undefined || t === undefined) return undefined;
  if (dbl === -1) {
    if (h.length !== 8) return undefined;
    groups.push(...h);
  } else {
    const missing = 8 - h.length - t.length;
    if (missing < 1) return undefined;
    groups.push(...h, ...new Array<number>(missing).fill(0), ...t);
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

export function isIPv4Mapped(value: bigint): boolean {
  return value >> 32n === 0xffffn;
}

export function parseIP(s: string, mode: ParseMode = "strict"): IPAddress | undefined {
  if (!s.includes(":")) {
    const v = parseIPv4Value(s, mode);
    return v === undefined ? undefined : ipv4(v);
  }
  const v6 = parseIPv6Value(s, mode);
  if (v6 === undefined) return undefined;
  if (isIPv4Mapped(v6)) {
    if (mode === "strict") return undefined;
    return ipv4(Number(v6 & 0xffffffffn));
  }
  return ipv6(v6);
}

/**
 * "0" to "255", and "0." to "255.", made once: printing an address converts no number to a
 * string and joins four pieces (a render prints ~100,000 addresses).
 */
const OCTETS: readonly string[] = Array.from({ length: 256 }, (_, i) => String(i));
const OCTETS_DOT: readonly string[] = OCTETS.map((o) => `${o}.`);

export function formatIPv4Value(v: number): string {
  return `${OCTETS_DOT[(v >>> 24) & 255]}${OCTETS_DOT[(v >>> 16) & 255]}${OCTETS_DOT[(v >>> 8) & 255]}${OCTETS[v & 255]}`;
}

export function formatIPv6Value(v: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  if (v >> 32n === 0xffffn) {
    return `::ffff:${formatIPv4Value(Number(v & 0xffffffffn))}`;
  }
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(":");
  const left = hex.slice(0, bestStart).join(":");
  const right = hex.slice(bestStart + bestLen).join(":");
  return `${left}::${right}`;
}

export function formatIP(a: IPAddress): string {
  return a.family === "IPv4" ? formatIPv4Value(a.value) : formatIPv6Value(a.value);
}

/** Canonical text of an IP string, or undefined if it does not parse. */
export function canonicalIP(s: string, mode: ParseMode = "lenient"): string | undefined {
  const a = parseIP(s, mode);
  return a === undefined ? undefined : formatIP(a);
}

export function ipFamilyOf(s: string): IPFamily | undefined {
  return parseIP(s, "lenient")?.family;
}

export function ipEquals(a: IPAddress, b: IPAddress): boolean {
  return a.family === b.family && a.value === b.value;
}

export function compareIP(a: IPAddress, b: IPAddress): number {
  if (a.family !== b.family) return a.family === "IPv4" ? -1 : 1;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

export function bitLength(family: IPFamily): 32 | 128 {
  return family === "IPv4" ? 32 : 128;
}

export const IPV4_MAPPED_PREFIX_VALUE = V4_MAPPED_PREFIX;

/** `[addr]:port` for IPv6, `addr:port` for IPv4: the form kube-proxy and trace output use. */
export function joinHostPort(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}
