/**
 * CIDR prefixes. A `CIDR` keeps the address as written (kube-proxy and NetworkPolicy accept
 * `10.0.0.5/8`-style host bits in some places) and the masked network separately.
 */
import {
  bitLength,
  formatIP,
  ipv4,
  ipv6,
  parseIP,
  type IPAddress,
  type IPFamily,
  type ParseMode,
} from "./address.js";

export interface CIDR {
  readonly family: IPFamily;
  /** The address as written (host bits kept). */
  readonly address: IPAddress;
  /** The network address (host bits cleared). */
  readonly network: IPAddress;
  readonly prefix: number;
}

const PREFIX = /^(0|[1-9][0-9]{0,2})$/;

export function maskValue4(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}
export function maskValue6(prefix: number): bigint {
  return prefix === 0 ? 0n : BigInt.asUintN(128, ~0n << BigInt(128 - prefix));
}

export function makeCIDR(address: IPAddress, prefix: number): CIDR {
  // Addresses are immutable: a host address (no host bits to clear) is its own network, which
  // spares a second object for each of the many host addresses in a large rule set.
  let network: IPAddress;
  if (address.family === "IPv4") {
    const value = (address.value & maskValue4(prefix)) >>> 0;
    network = value === address.value ? address : ipv4(value);
  } else {
    const value = address.value & maskValue6(prefix);
    network = value === address.value ? address : ipv6(value);
  }
  return { family: address.family, address, network, prefix };
}

export function parseCIDR(s: string, mode: ParseMode = "strict"): CIDR | undefined {
  const slash = s.indexOf("/");
  if (slash === -1) return undefined;
  const addr = parseIP(s.slice(0, slash), mode);
  const p = s.slice(slash + 1);
  if (addr === undefined || !PREFIX.test(p)) return undefined;
  let prefix = Number(p);
  // Lenient parsing folds an IPv4-mapped address to IPv4; its prefix counts 128 bits, as in
  // Go's ParseCIDR ("::ffff:10.0.0.0/104" is 10.0.0.0/8).
  if (addr.family === "IPv4" && s.slice(0, slash).includes(":")) {
    if (prefix < 96 || prefix > 128) return undefined;
    prefix -= 96;
  }
  if (prefix > bitLength(addr.family)) return undefined;
  return makeCIDR(addr, prefix);
}

/** A CIDR, or a bare address taken as a host prefix (/32 or /128), as iptables does. */
export function parseCIDROrHost(s: string, mode: ParseMode = "lenient"): CIDR | undefined {
  if (s.includes("/")) return parseCIDR(s, mode);
  const a = parseIP(s, mode);
  return a === undefined ? undefined : makeCIDR(a, bitLength(a.family));
}

export function formatCIDR(c: CIDR): string {
  return `${formatIP(c.network)}/${c.prefix}`;
}

/** The CIDR as written: address with host bits, then the prefix. */
export function formatCIDRAsWritten(c: CIDR): string {
  return `${formatIP(c.address)}/${c.prefix}`;
}

export function cidrContains(c: CIDR, ip: IPAddress): boolean {
  if (c.family !== ip.family) return false;
  if (ip.family === "IPv4") {
    const m = maskValue4(c.prefix);
    return (ip.value & m) >>> 0 === c.network.value;
  }
  return (ip.value & maskValue6(c.prefix)) === c.network.value;
}

/** True when every address of `inner` is in `outer`. */
export function cidrCovers(outer: CIDR, inner: CIDR): boolean {
  return (
    outer.family === inner.family &&
    outer.prefix <= inner.prefix &&
    cidrContains(outer, inner.network)
  );
}

export function cidrOverlaps(a: CIDR, b: CIDR): boolean {
  return cidrCovers(a, b) || cidrCovers(b, a);
}

export function isHostCIDR(c: CIDR): boolean {
  return c.prefix === bitLength(c.family);
}
