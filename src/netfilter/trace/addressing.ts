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
export interface AddressBook {
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
  /** Primary addresses in scope by interface, per family (masqueradeSource), filled on use. */
  readonly primaries4: Map<string, readonly LocalAddress[]>;
  readonly primaries6: Map<string, readonly LocalAddress[]>;
  /** The same decisions for IPv4 destinations, as numbers (see `Ipv4Routes`). */
  readonly v4: Ipv4Routes;
}

/**
 * IPv4 routing as numbers, made once per node from its configuration (a pure function of
 * it, like the rest of the book): the depth-first walk routes every statistic branch after
 * its DNAT, and MASQUERADE routes it again for the next hop. Each answer is what the general
 * lookups above give (`isLocalAddress`, `lookupRoute`); test/netfilter/trace/routing.test.ts
 * holds them to it on random nodes.
 */
interface Ipv4Routes {
  /** Loopback entries: network and mask (their whole prefix is local). */
  readonly loNet: readonly number[];
  readonly loMask: readonly number[];
  /** Connected prefixes shorter than 32, in address order. */
  readonly netNet: readonly number[];
  readonly netMask: readonly number[];
  readonly netPrefix: readonly number[];
  readonly netDev: readonly string[];
  /** `dp.routes` of the family, in order. */
  readonly rtNet: readonly number[];
  readonly rtMask: readonly number[];
  readonly rtPrefix: readonly number[];
  readonly rtDev: readonly string[];
  readonly rtGateway: readonly (IPAddress | undefined)[];
  /**
   * The exact local IPv4 addresses (`exact`'s keys) and the /32 host addresses with their
   * interfaces (`hosts`), as lists: a node has a few, and a scan of a few numbers is cheaper
   * than a Map of heap numbers (addresses above 2^31). Undefined when there are many: the Maps.
   */
  readonly exactList: readonly number[] | undefined;
  readonly hostNet: readonly number[] | undefined;
  readonly hostDev: readonly string[];
  /** One decision object per outcome (no allocation per look-up). */
  readonly local: RouteChoice;
  readonly via: Map<string, RouteChoice>;
}

/** Where a packet to a destination goes: delivered locally, or out of `outInterface` ("lo" when local). */
export interface RouteChoice {
  readonly local: boolean;
  readonly outInterface: string;
}

/** Beyond this many exact or host addresses, IPv4 look-ups use the book's Maps. */
const FEW = 16;

function ipv4Routes(
  dp: NodeDataplane,
  networks: readonly LocalAddress[],
  exact: ReadonlyMap<IndexKey, unknown>,
  hosts: ReadonlyMap<IndexKey, string>,
): Ipv4Routes {
  const lo = dp.addresses.filter((a) => a.wholePrefixLocal && a.cidr.family === "IPv4");
  const nets = networks.filter((a) => a.cidr.family === "IPv4");
  const routes = dp.routes.filter((r) => r.cidr.family === "IPv4");
  const exact4 = [...exact.keys()].filter((k): k is number => typeof k === "number");
  const hosts4 = [...hosts].filter((e): e is [number, string] => typeof e[0] === "number");
  return {
    exactList: exact.size <= FEW ? exact4 : undefined,
    hostNet: hosts.size <= FEW ? hosts4.map((e) => e[0]) : undefined,
    hostDev: hosts4.map((e) => e[1]),
    loNet: lo.map((a) => a.cidr.network.value as number),
    loMask: lo.map((a) => maskValue4(a.cidr.prefix)),
    netNet: nets.map((a) => a.cidr.network.value as number),
    netMask: nets.map((a) => maskValue4(a.cidr.prefix)),
    netPrefix: nets.map((a) => a.cidr.prefix),
    netDev: nets.map((a) => a.interfaceName),
    rtNet: routes.map((r) => r.cidr.network.value as number),
    rtMask: routes.map((r) => maskValue4(r.cidr.prefix)),
    rtPrefix: routes.map((r) => r.cidr.prefix),
    rtDev: routes.map((r) => r.dev),
    rtGateway: routes.map((r) => r.gateway),
    local: { local: true, outInterface: "lo" },
    via: new Map(),
  };
}

const books = new WeakMap<NodeDataplane, AddressBook>();

/**
 * The node's address book, made once per node: a caller that asks many times for one node
 * (the depth-first walk, for every statistic branch) passes it to `routeChoice` and
 * `masqueradeSource` instead of having each look it up.
 */
export function bookOf(dp: NodeDataplane): AddressBook {
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
  const book = {
    exact,
    wholePrefix,
    broadcast,
    hosts,
    networks,
    primaries4: new Map(),
    primaries6: new Map(),
    v4: ipv4Routes(dp, networks, exact, hosts),
  };
  books.set(dp, book);
  return book;
}

export function isLocalAddress(dp: NodeDataplane, ip: IPAddress, limitIface?: string): boolean {
  const book = bookOf(dp);
  if (ip.family === "IPv4" && limitIface === undefined) return isLocal4(book, ip.value);
  return referenceIsLocal(book, ip, limitIface);
}

function referenceIsLocal(
  book: AddressBook,
  ip: IPAddress,
  limitIface: string | undefined,
): boolean {
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

/** `isLocalAddress` of an IPv4 address on any interface. */
function isLocal4(book: AddressBook, v: number): boolean {
  const list = book.v4.exactList;
  if (list === undefined) {
    if (book.exact.has(v)) return true;
  } else for (let i = 0; i < list.length; i++) if (list[i] === v) return true;
  const { loNet, loMask } = book.v4;
  for (let i = 0; i < loNet.length; i++) if ((v & loMask[i]!) >>> 0 === loNet[i]) return true;
  return false;
}

/** `lookupRoute` of an IPv4 address: the device, and the route's gateway (undefined: none). */
function lookupRoute4(book: AddressBook, dp: NodeDataplane, v: number): void {
  const t = book.v4;
  let host: string | undefined;
  const hostNet = t.hostNet;
  if (hostNet === undefined) host = book.hosts.get(v);
  else
    for (let i = 0; i < hostNet.length; i++)
      if (hostNet[i] === v) {
        host = t.hostDev[i];
        break;
      }
  if (host !== undefined) {
    found.dev = host;
    found.gateway = undefined;
    return;
  }
  let best = -1;
  let bestPrefix = -1;
  for (let i = 0; i < t.netNet.length; i++) {
    const prefix = t.netPrefix[i]!;
    if (prefix > bestPrefix && (v & t.netMask[i]!) >>> 0 === t.netNet[i]) {
      best = i;
      bestPrefix = prefix;
    }
  }
  let route = -1;
  for (let i = 0; i < t.rtNet.length; i++) {
    const prefix = t.rtPrefix[i]!;
    if (prefix > bestPrefix && (v & t.rtMask[i]!) >>> 0 === t.rtNet[i]) {
      route = i;
      bestPrefix = prefix;
    }
  }
  found.dev = route >= 0 ? t.rtDev[route]! : best >= 0 ? t.netDev[best]! : dp.defaultInterface;
  found.gateway = route >= 0 ? t.rtGateway[route] : undefined;
}

/** lookupRoute4's answer (one object, overwritten by every look-up: no allocation). */
const found: { dev: string; gateway: IPAddress | undefined } = { dev: "", gateway: undefined };

/**
 * `route(dp, dst)` without the next hop, as one shared object per answer: the depth-first
 * walk's routing after DNAT and re-routing.
 */
export function routeChoice(
  dp: NodeDataplane,
  dst: IPAddress,
  book: AddressBook = bookOf(dp),
): RouteChoice {
  if (dst.family !== "IPv4") {
    const d = route(dp, dst);
    return { local: d.local, outInterface: d.outInterface };
  }
  if (isLocal4(book, dst.value)) return book.v4.local;
  lookupRoute4(book, dp, dst.value);
  let c = book.v4.via.get(found.dev);
  if (c === undefined) book.v4.via.set(found.dev, (c = { local: false, outInterface: found.dev }));
  return c;
}

/** The route to `ip`: the longest prefix of the connected ones and `dp.routes`, else the default interface. */
function lookupRoute(dp: NodeDataplane, ip: IPAddress): { dev: string; nextHop: IPAddress } {
  const book = bookOf(dp);
  if (ip.family === "IPv4") {
    lookupRoute4(book, dp, ip.value);
    return { dev: found.dev, nextHop: found.gateway ?? ip };
  }
  return lookupRouteAnyFamily(book, dp, ip);
}

/** `lookupRoute` from the general lists, for any family: the reference of the IPv4 numbers. */
export function referenceRoute(dp: NodeDataplane, ip: IPAddress): RouteDecision {
  if (referenceIsLocal(bookOf(dp), ip, undefined))
    return { local: true, outInterface: "lo", nextHop: ip };
  const r = lookupRouteAnyFamily(bookOf(dp), dp, ip);
  return { local: false, outInterface: r.dev, nextHop: r.nextHop };
}

/**
 * The route to `ip` from the address book's general lists (any family): the reference the
 * IPv4 numbers are tested against.
 */
function lookupRouteAnyFamily(
  book: AddressBook,
  dp: NodeDataplane,
  ip: IPAddress,
): { dev: string; nextHop: IPAddress } {
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
  if (ip.family !== "IPv4") return lookupRoute(dp, ip).dev;
  // Without lookupRoute's answer object (every trace asks, for its arrival interface).
  lookupRoute4(bookOf(dp), dp, ip.value);
  return found.dev;
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
  book: AddressBook = bookOf(dp),
): IPAddress | undefined {
  const family = dst.family;
  if (family === "IPv6") return ipv6Source(dp, iface, dst);
  // `lookupRoute(dp, dst).nextHop` without its answer object (every statistic branch asks).
  let nextHop: IPAddress = dst;
  if (iface !== "lo") {
    lookupRoute4(book, dp, dst.value);
    nextHop = found.gateway ?? dst;
  }
  let first: IPAddress | undefined;
  for (const a of book.primaries4.get(iface) ?? primaries(dp, iface, family)) {
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
  const byName = family === "IPv4" ? book.primaries4 : book.primaries6;
  const hit = byName.get(iface);
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
  byName.set(iface, out);
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
