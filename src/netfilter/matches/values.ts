/**
 * Option value parsing shared by the extensions, with libxtables' rules: numbers in C `strtoul`
 * base-0 syntax (`0x` hex, leading-zero octal, decimal), marks as `value[/mask]`, ports and
 * port ranges `a[:b]`, addresses with an optional prefix or dotted mask. Parsed values are
 * interned so a 300,000-rule dump does not parse the same address 300,000 times.
 */
import {
  bitLength,
  ipv4,
  ipv6,
  makeCIDR,
  parseIPv6Value,
  type CIDR,
  type IPAddress,
  type IPFamily,
  type PortRange,
} from "../../net/index.js";
import { fail } from "./extension.js";

const UINT = /^[ \t\n\v\f\r]*\+?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;

/**
 * `strtoul(s, NULL, 0)` over the whole word, as libxtables' `xtables_strtoui` reads numbers:
 * blanks and a `+` may lead, a `-` may not (checked on the kernel: `--mark +1` is 1). Undefined
 * if it does not read.
 */
export function parseCNumber(word: string): number | undefined {
  const m = UINT.exec(word);
  if (m === null) return undefined;
  const s = m[1] as string;
  let n: number;
  if (s.length > 1 && (s[1] === "x" || s[1] === "X")) n = parseInt(s.slice(2), 16);
  else if (s.length > 1 && s[0] === "0") n = parseInt(s, 8);
  else n = Number(s);
  return n;
}

const C_DECIMAL = /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
const C_HEX = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?$/;

/**
 * `strtod(s, &end)` over the whole word, as libxt_statistic reads `--probability`: blanks and a
 * sign may lead; decimal (`.5`, `5e-1`), hexadecimal (`0x1p-1`), `inf`/`infinity` and
 * `nan`/`nan(...)` in any case. Undefined if it does not read.
 */
export function parseCDouble(word: string): number | undefined {
  let s = word.replace(/^[ \t\n\v\f\r]+/, "");
  const sign = s.startsWith("-") ? -1 : 1;
  if (s.startsWith("-") || s.startsWith("+")) s = s.slice(1);
  const lower = s.toLowerCase();
  if (lower === "inf" || lower === "infinity") return sign * Infinity;
  if (/^nan(\([0-9a-z_]*\))?$/.test(lower)) return NaN;
  if (C_DECIMAL.test(s)) return sign * Number(s);
  const h = C_HEX.exec(s);
  if (h === null) return undefined;
  const int = h[1] as string;
  const frac = h[2] ?? "";
  if (int === "" && frac === "") return undefined;
  let v = int === "" ? 0 : parseInt(int, 16);
  for (let k = 0; k < frac.length; k++) v += parseInt(frac[k] as string, 16) / 16 ** (k + 1);
  return sign * v * 2 ** Number(h[3] ?? "0");
}

export function parseUint(s: string, max: number, what: string): number {
  const n = parseCNumber(s);
  if (n === undefined || n > max) fail(`${what}: invalid value "${s}"`);
  return n;
}

export interface MarkMask {
  readonly value: number;
  readonly mask: number;
}

/** `value[/mask]`, each a 32-bit number; the mask defaults to all ones. */
export function parseMarkMask(s: string, what: string): MarkMask {
  const slash = s.indexOf("/");
  if (slash === -1) return { value: parseUint(s, 0xffffffff, what), mask: 0xffffffff };
  return {
    value: parseUint(s.slice(0, slash), 0xffffffff, what),
    mask: parseUint(s.slice(slash + 1), 0xffffffff, what),
  };
}

export function hex(n: number): string {
  return `0x${(n >>> 0).toString(16)}`;
}

/** `0x1/0xff`, the mask left out when it is all ones (mark and connmark matches). */
export function formatMarkMask(m: MarkMask): string {
  return m.mask === 0xffffffff ? hex(m.value) : `${hex(m.value)}/${hex(m.mask)}`;
}

/**
 * How a module reads a port number (checked with iptables-nft 1.8.9 and ipset 7.17 on the
 * kernel):
 * - "xtables" (tcp, sctp, multiport, the NAT targets, ipset): libxtables' `xtables_strtoui`,
 *   C `strtoul` in base 0 over the whole word: `010` is 8, `0x10` is 16, `08` is refused; blanks
 *   and a `+` may lead, a `-` may not; at most 65535.
 * - "service" (udp, conntrack, ipvs): `xtables_getportbyname`, that is glibc getaddrinfo's
 *   numeric service: `strtoul` in base 10 (`010` is 10, `08` is 8, `0x10` is refused; blanks and
 *   a sign may lead), the result taken as a C int: a negative one is refused, any other keeps
 *   its low 16 bits (`65536` is 0, `99999` is 34463, `-1` and `4294967295` are refused).
 */
export type PortForm = "xtables" | "service";

const PLAIN_PORT = /^(0|[1-9][0-9]{0,4})$/;
const BLANK = /^[ \t\n\v\f\r]+/;
const DIGITS = /^[0-9]+$/;
const ULONG_MAX = (1n << 64n) - 1n;

/** Port `s` as a module of `form` reads it, or undefined if it refuses it. */
export function parsePort(s: string, form: PortForm): number | undefined {
  if (PLAIN_PORT.test(s)) {
    const n = Number(s);
    return n <= 65535 ? n : form === "service" ? n & 0xffff : undefined;
  }
  if (form === "xtables") {
    const n = parseCNumber(s);
    return n !== undefined && n <= 65535 ? n : undefined;
  }
  let t = s.replace(BLANK, "");
  const negative = t.startsWith("-");
  if (negative || t.startsWith("+")) t = t.slice(1);
  if (!DIGITS.test(t)) return undefined;
  // strtoul: an out-of-range value is ULONG_MAX; a negated one wraps around 2^64.
  let v = BigInt(t);
  if (v > ULONG_MAX) v = ULONG_MAX;
  else if (negative) v = ((1n << 64n) - v) & ULONG_MAX;
  const asInt = Number(v & 0xffffffffn) | 0;
  return asInt < 0 ? undefined : asInt & 0xffff;
}

/** Port `s` as a module of `form` reads it; fails, in its words, if it refuses it. */
export function portOf(s: string, what: string, form: PortForm): number {
  const p = parsePort(s, form);
  if (p === undefined) badPort(what, s, form);
  return p;
}

/** `parsePort`'s complaint about `s`, in the words of the module's `form`. */
function badPort(what: string, s: string, form: PortForm): never {
  fail(
    form === "xtables"
      ? `${what}: invalid port/service "${s}" specified`
      : `${what}: port "${s}" does not resolve to anything`,
  );
}

const portCaches = { xtables: new Map<string, PortRange>(), service: new Map<string, PortRange>() };

/**
 * `a`, `a:b`, `:b` or `a:` (0 and 65535 fill a missing end), each number read as `form` says. A
 * reversed range (`5:3`) is kept as written, and matches no port, where iptables-nft 1.8.9 keeps
 * it (udp, conntrack); `refuse` rejects it as libxt_tcp and libxt_sctp do.
 */
export function parsePortSpec(
  s: string,
  what: string,
  reversed: "keep" | "refuse" = "keep",
  form: PortForm = "xtables",
): PortRange {
  const cache = portCaches[form];
  let r = cache.get(s);
  if (r === undefined) {
    const colon = s.indexOf(":");
    if (colon === -1) {
      const p = portOf(s, what, form);
      r = { from: p, to: p };
    } else {
      const left = s.slice(0, colon);
      const right = s.slice(colon + 1);
      const a = colon === 0 ? 0 : parsePort(left, form);
      const b = colon === s.length - 1 ? 65535 : parsePort(right, form);
      if (a === undefined) badPort(what, form === "xtables" ? s : left, form);
      if (b === undefined) badPort(what, form === "xtables" ? s : right, form);
      r = { from: a, to: b };
    }
    if (cache.size < 100_000) cache.set(s, r);
  }
  if (reversed === "refuse" && r.from > r.to)
    fail(`${what}: invalid portrange (min > max) "${s}" specified`);
  return r;
}

export function formatPortRange(r: PortRange): string {
  return r.from === r.to ? `${r.from}` : `${r.from}:${r.to}`;
}

/** Parsed address specs by family and form, then by text (null: invalid). */
const cidrCaches = new Map<string, Map<string, CIDR | null>>();

function maskToPrefix(mask: IPAddress): number | undefined {
  const bits = bitLength(mask.family);
  const v = BigInt(mask.value);
  let prefix = 0;
  while (prefix < bits && ((v >> BigInt(bits - 1 - prefix)) & 1n) === 1n) prefix++;
  for (let i = prefix; i < bits; i++)
    if (((v >> BigInt(bits - 1 - i)) & 1n) === 1n) return undefined;
  return prefix;
}

/**
 * `addr[/prefix|/mask]` as `-s`/`-d` take it: a bare address is a host prefix, the network is
 * masked. Host names are not resolved (an offline model has no DNS): they are an error.
 */
export function parseAddressSpec(
  s: string,
  family: IPFamily,
  what: string,
  form: NumberForm = "xtables",
): CIDR {
  const kind = family === "IPv4" ? form : `6${form}`;
  let cache = cidrCaches.get(kind);
  if (cache === undefined) cidrCaches.set(kind, (cache = new Map<string, CIDR | null>()));
  const cached = cache.get(s);
  if (cached === null) fail(`${what}: invalid address "${s}"`);
  if (cached !== undefined) return cached;
  const c = parseAddressUncached(s, family, form);
  if (cache.size < 200_000) cache.set(s, c ?? null);
  if (c === undefined) fail(`${what}: invalid address "${s}"`);
  return c;
}

/** `parseAddressSpec` for a caller that keeps its own cache (no lookup in this one). */
export function parseAddressSpecUncached(s: string, family: IPFamily, what: string): CIDR {
  const c = parseAddressUncached(s, family, "host");
  if (c === undefined) fail(`${what}: invalid address "${s}"`);
  return c;
}

/**
 * Dotted-quad IPv4 by a character scan (the hot path of a large dump); undefined if not one.
 * `canonical`: also undefined for an octet with a leading zero, so the text is what
 * `formatIP` prints.
 */
export function fastIPv4(s: string, canonical = false): number | undefined {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (canonical && digits > 0 && octet === 0) return undefined;
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return undefined;
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else return undefined;
  }
  if (dots !== 3 || digits === 0) return undefined;
  return value * 256 + octet;
}

/**
 * How a tool reads an IPv4 address that is not a plain dotted quad (each checked with
 * iptables-nft 1.8.9 and ipset 7.17 on the kernel). Numbers are read as C's strtoul with base
 * 0 reads them: `010` is octal 8, `0x0a` is 10.
 * - `host` (`-s`/`-d`): libxtables' own reading, 1 to 4 numbers of at most 255 with the
 *   missing ones 0 at the end (`10.1` is 10.1.0.0, `0/0` is 0.0.0.0/0); failing that, the
 *   resolver's inet_aton (`300` is 0.0.1.44). A prefix length is read the same way (`/024`
 *   is /20).
 * - `xtables` (iprange): libxtables' own reading only.
 * - `aton` (conntrack addresses, recent's mask): inet_aton, whose last number fills the bytes
 *   left (`10.1` is 10.0.0.1, `255.255` is 255.0.0.255).
 * - `ipset`: inet_aton without hex numbers.
 * - `decimal` (DNAT/SNAT ranges): a plain dotted quad only.
 */
export type NumberForm = "host" | "xtables" | "aton" | "ipset" | "decimal";

/** One number as strtoul(base 0) reads it (hex only if `hex`), or undefined. */
function baseZero(s: string, hex: boolean): number | undefined {
  if (/^[1-9][0-9]*$/.test(s)) return Number(s);
  if (/^0[0-7]*$/.test(s)) return parseInt(s, 8);
  if (hex && /^0[xX][0-9a-fA-F]+$/.test(s)) return parseInt(s.slice(2), 16);
  return undefined;
}

/** The numbers of a dotted address (1 to 4), or undefined. */
function numbers(s: string, hex: boolean): number[] | undefined {
  const parts = s.split(".");
  if (parts.length > 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    const n = baseZero(p, hex);
    if (n === undefined) return undefined;
    out.push(n);
  }
  return out;
}

/** libxtables' reading: each number at most 255, missing ones 0 at the end. */
function xtablesIPv4(s: string): number | undefined {
  const ns = numbers(s, true);
  if (ns === undefined || ns.some((n) => n > 255)) return undefined;
  let value = 0;
  for (let k = 0; k < 4; k++) value = value * 256 + (ns[k] ?? 0);
  return value;
}

/** inet_aton: the last number fills the bytes the others leave. */
function atonIPv4(s: string, hex: boolean): number | undefined {
  const ns = numbers(s, hex);
  if (ns === undefined) return undefined;
  const last = ns.length - 1;
  const span = 2 ** (8 * (4 - last));
  if (ns.some((n, k) => (k < last ? n > 255 : n >= span))) return undefined;
  let value = 0;
  for (let k = 0; k < last; k++) value = value * 256 + (ns[k] as number);
  return value * span + (ns[last] as number);
}

/** An IPv4 address as `form` reads it (see NumberForm), or undefined. */
function formIPv4(s: string, form: NumberForm): number | undefined {
  const canonical = fastIPv4(s, true);
  if (canonical !== undefined || form === "decimal") return canonical;
  switch (form) {
    case "host":
      return xtablesIPv4(s) ?? atonIPv4(s, true);
    case "xtables":
      return xtablesIPv4(s);
    case "aton":
      return atonIPv4(s, true);
    case "ipset":
      return atonIPv4(s, false);
  }
}

/** An address of the given family; IPv4-mapped IPv6 stays IPv6 (ip6tables keeps it). */
export function parseFamilyIP(
  s: string,
  family: IPFamily,
  form: NumberForm = "xtables",
): IPAddress | undefined {
  if (family === "IPv4") {
    const v = formIPv4(s, form);
    return v === undefined ? undefined : ipv4(v);
  }
  // inet_pton, as the tools use for IPv6: no leading zeros in an embedded dotted quad.
  const v = parseIPv6Value(s, "strict");
  return v === undefined ? undefined : ipv6(v);
}

function parseAddressUncached(s: string, family: IPFamily, form: NumberForm): CIDR | undefined {
  const slash = s.indexOf("/");
  const addrText = slash === -1 ? s : s.slice(0, slash);
  const addr = parseFamilyIP(addrText, family, form);
  if (addr === undefined) return undefined;
  const bits = bitLength(family);
  if (slash === -1) return makeCIDR(addr, bits);
  const m = s.slice(slash + 1);
  const n = form === "host" ? baseZero(m, true) : /^[0-9]{1,3}$/.test(m) ? Number(m) : undefined;
  if (n !== undefined) return n <= bits ? makeCIDR(addr, n) : undefined;
  const mask = parseFamilyIP(m, family, form);
  if (mask === undefined) return undefined;
  const p = maskToPrefix(mask);
  return p === undefined ? undefined : makeCIDR(addr, p);
}

export function parseIPOf(
  s: string,
  family: IPFamily,
  what: string,
  form: NumberForm = "xtables",
): IPAddress {
  const a = parseFamilyIP(s, family, form);
  if (a === undefined) fail(`${what}: invalid address "${s}"`);
  return a;
}

/** Comma-separated names from a closed list, each at most once (ctstate, addrtype, ...). */
export function parseNameList<T extends string>(
  s: string,
  allowed: readonly T[],
  what: string,
): readonly T[] {
  const out: T[] = [];
  for (const part of s.split(",")) {
    // libxt_addrtype, libxt_state and libxt_conntrack compare with strncasecmp over the part's
    // length: a part names the first name, in their order, that it starts (checked on the
    // kernel: `U` is UNSPEC, `unr` UNREACHABLE, `N` NEW).
    const up = part.toUpperCase();
    const found = up === "" ? undefined : allowed.find((a) => a.startsWith(up));
    if (found === undefined) fail(`${what}: bad value "${part}"`);
    if (!out.includes(found)) out.push(found);
  }
  return out;
}

/** Names in the fixed order the save form prints them. */
export function sortNames<T extends string>(names: readonly T[], order: readonly T[]): string {
  return order.filter((n) => names.includes(n)).join(",");
}
