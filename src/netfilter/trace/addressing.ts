/**
 * Local addresses and routing, from the node's interface addresses only: an address is LOCAL
 * when an interface holds it (on loopback, anything in its prefix, as the kernel's local
 * table says); a destination leaves by the interface whose connected prefix holds it (longest
 * prefix), else by the default interface. No routing tables beyond that are modelled.
 */
import {
  bitLength,
  cidrContains,
  maskValue4,
  type IPAddress,
  type IPFamily,
} from "../../net/index.js";
import type { AddrType } from "../model.js";
import { addressKey, type IndexKey } from "./chain-index.js";
import type { LocalAddress, NodeDataplane } from "./dataplane.js";

/**
 * The node's addresses arranged for lookups, built once per dataplane: a node with IPVS holds
 * every service address on kube-ipvs0, and every trace asks whether addresses are local.
 * Each lookup gives what a scan of `dp.addresses` in order gives.
 */
interface AddressBook {
  /** Interfaces holding each exact (non-loopback) address, in address order. */
  readonly exact: ReadonlyMap<IndexKey, readonly string[]>;
  /** Loopback entries (their whole prefix is local). */
  readonly wholePrefix: readonly LocalAddress[];
  /** IPv4 entries with a broadcast address (prefix below 31, not loopback). */
  readonly broadcast: readonly LocalAddress[];
  /** The first interface holding each full-length prefix (a /32 or /128). */
  readonly hosts: ReadonlyMap<IndexKey, string>;
  /** Entries with a shorter prefix, in address order. */
  readonly networks: readonly LocalAddress[];
  /** Primary addresses in scope by `interface family` (masqueradeSource), filled on use. */
  readonly primaries: Map<string, readonly LocalAddress[]>;
}

const books = new WeakMap<NodeDataplane, AddressBook>();

function bookOf(dp: NodeDataplane): AddressBook {
  const hit = books.get(dp);
  if (hit !== undefined) return hit;
  const exact = new Map<IndexKey, string[]>();
  const hosts = new Map<IndexKey, string>();
  const wholePrefix: LocalAddress[] = [];
  const broadcast: LocalAddress[] = [];
  const networks: LocalAddress[] = [];
  for (const a of dp.addresses) {
    const c = a.cidr;
    const key = addressKey(c.address);
    if (a.wholePrefixLocal) wholePrefix.push(a);
    else {
      const list = exact.get(key);
      if (list === undefined) exact.set(key, [a.interfaceName]);
      else list.push(a.interfaceName);
      if (c.family === "IPv4" && c.prefix < 31) broadcast.push(a);
    }
    if (c.prefix === bitLength(c.family)) {
      const hostKey = addressKey(c.network);
      if (!hosts.has(hostKey)) hosts.set(hostKey, a.interfaceName);
    } else networks.push(a);
  }
  const book = { exact, wholePrefix, broadcast, hosts, networks, primaries: new Map() };
  books.set(dp, book);
  return book;
}

export function isLocalAddress(dp: NodeDataplane, ip: IPAddress, limitIface?: string): boolean {
  const book = bookOf(dp);
  const on = book.exact.get(addressKey(ip));
  if (on !== undefined && (limitIface === undefined || on.includes(limitIface))) return true;
  for (const a of book.wholePrefix) {
    if (limitIface !== undefined && a.interfaceName !== limitIface) continue;
    if (cidrContains(a.cidr, ip)) return true;
  }
  return false;
}

const MULTICAST4 = { lo: 0xe0000000, mask: maskValue4(4) };

function isBroadcast(dp: NodeDataplane, ip: IPAddress, limitIface?: string): boolean {
  if (ip.family !== "IPv4") return false;
  if (ip.value === 0xffffffff) return true;
  for (const a of bookOf(dp).broadcast) {
    if (limitIface !== undefined && a.interfaceName !== limitIface) continue;
    const bcast = ((a.cidr.network.value as number) | ~maskValue4(a.cidr.prefix)) >>> 0;
    if (bcast === ip.value) return true;
  }
  return false;
}

/** The addrtype of `ip` as this node's routing tables would classify it. */
export function addrTypeOf(dp: NodeDataplane, ip: IPAddress, limitIface?: string): AddrType {
  if (ip.family === "IPv4") {
    if (ip.value === 0) return "UNSPEC";
    if ((ip.value & MULTICAST4.mask) >>> 0 === MULTICAST4.lo) return "MULTICAST";
  } else {
    if (ip.value === 0n) return "UNSPEC";
    if (ip.value >> 120n === 0xffn) return "MULTICAST";
  }
  if (isLocalAddress(dp, ip, limitIface)) return "LOCAL";
  if (isBroadcast(dp, ip, limitIface)) return "BROADCAST";
  return "UNICAST";
}

/** The route to `ip`: the longest prefix of the connected ones and `dp.routes`, else the default interface. */
function lookupRoute(dp: NodeDataplane, ip: IPAddress): { dev: string; nextHop: IPAddress } {
  const book = bookOf(dp);
  // No prefix is longer than a full-length one, and the first such entry wins a tie.
  const host = book.hosts.get(addressKey(ip));
  if (host !== undefined) return { dev: host, nextHop: ip };
  let best: string | undefined;
  let bestPrefix = -1;
  for (const a of book.networks) {
    if (a.cidr.family !== ip.family || a.cidr.prefix <= bestPrefix) continue;
    if (cidrContains(a.cidr, ip)) {
      best = a.interfaceName;
      bestPrefix = a.cidr.prefix;
    }
  }
  let gateway: IPAddress | undefined;
  for (const r of dp.routes) {
    // A connected prefix wins a tie (the kernel's routes for addresses come first).
    if (r.cidr.family !== ip.family || r.cidr.prefix <= bestPrefix) continue;
    if (cidrContains(r.cidr, ip)) {
      best = r.dev;
      bestPrefix = r.cidr.prefix;
      gateway = r.gateway;
    }
  }
  return { dev: best ?? dp.defaultInterface, nextHop: gateway ?? ip };
}

/** The interface a packet to `ip` leaves by (and one from `ip` is taken to arrive on). */
export function interfaceFor(dp: NodeDataplane, ip: IPAddress): string {
  return lookupRoute(dp, ip).dev;
}

export interface RouteDecision {
  readonly local: boolean;
  readonly outInterface: string;
  /** The route's gateway, or the destination itself. */
  readonly nextHop: IPAddress;
}

export function route(dp: NodeDataplane, dst: IPAddress): RouteDecision {
  if (isLocalAddress(dp, dst)) return { local: true, outInterface: "lo", nextHop: dst };
  const r = lookupRoute(dp, dst);
  return { local: false, outInterface: r.dev, nextHop: r.nextHop };
}

/**
 * Scope host: 127.0.0.0/8 and ::1 (iproute2 gives loopback addresses that scope), and IPv6
 * link-local fe80::/10 (scope link): never a MASQUERADE source for a global destination.
 */
function outOfScope(a: IPAddress): boolean {
  if (a.family === "IPv4") return a.value >>> 24 === 127;
  return a.value === 1n || a.value >> 118n === 0x3fan;
}

/**
 * The source MASQUERADE picks for a packet leaving by `iface` towards `dst` (net/ipv4
 * devinet.c `inet_select_addr(out, rt_nexthop(rt, daddr), RT_SCOPE_UNIVERSE)`): of the
 * outgoing interface's primary addresses (an address in the prefix of an earlier one of the
 * same length is secondary), the first whose prefix holds the next hop, else the first; else
 * the first primary address of any interface (lo first, then in the order given); never a
 * scope-host address. IPv6 (`ipv6_dev_get_saddr`, RFC 6724 as far as addresses go): the
 * outgoing interface's addresses before others, then the longest prefix shared with the
 * destination. undefined when there is none: the kernel drops the packet.
 */
export function masqueradeSource(
  dp: NodeDataplane,
  iface: string,
  dst: IPAddress,
): IPAddress | undefined {
  const family = dst.family;
  if (family === "IPv6") return ipv6Source(dp, iface, dst);
  const nextHop = iface === "lo" ? dst : lookupRoute(dp, dst).nextHop;
  let first: IPAddress | undefined;
  for (const a of primaries(dp, iface, family)) {
    if (cidrContains(a.cidr, nextHop)) return a.cidr.address;
    first ??= a.cidr.address;
  }
  if (first !== undefined) return first;
  const order = [...new Set(["lo", ...dp.addresses.map((a) => a.interfaceName)])];
  for (const name of order) {
    const any = primaries(dp, name, family)[0];
    if (any !== undefined) return any.cidr.address;
  }
  return undefined;
}

/** An interface's primary addresses of `family` in scope, in order. */
function primaries(dp: NodeDataplane, iface: string, family: IPFamily): readonly LocalAddress[] {
  const book = bookOf(dp);
  const key = `${iface} ${family}`;
  const hit = book.primaries.get(key);
  if (hit !== undefined) return hit;
  const out: LocalAddress[] = [];
  const seen: LocalAddress[] = [];
  for (const a of dp.addresses) {
    if (a.interfaceName !== iface || a.cidr.family !== family) continue;
    const secondary = seen.some(
      (p) => p.cidr.prefix === a.cidr.prefix && cidrContains(p.cidr, a.cidr.address),
    );
    if (secondary) continue;
    seen.push(a);
    if (!outOfScope(a.cidr.address)) out.push(a);
  }
  book.primaries.set(key, out);
  return out;
}

function commonBits(a: bigint, b: bigint): number {
  const x = a ^ b;
  return x === 0n ? 128 : 128 - x.toString(2).length;
}

function ipv6Source(dp: NodeDataplane, iface: string, dst: IPAddress): IPAddress | undefined {
  let best: IPAddress | undefined;
  let bestScore = -1;
  for (const a of dp.addresses) {
    const ip = a.cidr.address;
    if (ip.family !== "IPv6" || outOfScope(ip)) continue;
    const score = (a.interfaceName === iface ? 256 : 0) + commonBits(ip.value, dst.value as bigint);
    if (score > bestScore) {
      best = ip;
      bestScore = score;
    }
  }
  return best;
}
