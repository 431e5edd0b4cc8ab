/**
 * Local addresses and routing, from the node's interface addresses only: an address is LOCAL
 * when an interface holds it (on loopback, anything in its prefix, as the kernel's local
 * table says); a destination leaves by the interface whose connected prefix holds it (longest
 * prefix), else by the default interface. No routing tables beyond that are modelled.
 */
import {
  bitLength,
  cidrContains,
  ipv4,
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
  /** The first address of each `interface family`. */
  readonly primary: ReadonlyMap<string, IPAddress>;
  /** The first non-loopback address of each family. */
  readonly anyPrimary: ReadonlyMap<IPFamily, IPAddress>;
}

const books = new WeakMap<NodeDataplane, AddressBook>();

function bookOf(dp: NodeDataplane): AddressBook {
  const hit = books.get(dp);
  if (hit !== undefined) return hit;
  const exact = new Map<IndexKey, string[]>();
  const hosts = new Map<IndexKey, string>();
  const primary = new Map<string, IPAddress>();
  const anyPrimary = new Map<IPFamily, IPAddress>();
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
      if (!anyPrimary.has(c.family)) anyPrimary.set(c.family, c.address);
    }
    if (c.prefix === bitLength(c.family)) {
      const hostKey = addressKey(c.network);
      if (!hosts.has(hostKey)) hosts.set(hostKey, a.interfaceName);
    } else networks.push(a);
    const pk = `${a.interfaceName} ${c.family}`;
    if (!primary.has(pk)) primary.set(pk, c.address);
  }
  const book = { exact, wholePrefix, broadcast, hosts, networks, primary, anyPrimary };
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

/** The interface whose connected prefix holds `ip` (longest prefix), or the default one. */
export function interfaceFor(dp: NodeDataplane, ip: IPAddress): string {
  const book = bookOf(dp);
  // No prefix is longer than a full-length one, and the first such entry wins a tie.
  const host = book.hosts.get(addressKey(ip));
  if (host !== undefined) return host;
  let best: string | undefined;
  let bestPrefix = -1;
  for (const a of book.networks) {
    if (a.cidr.family !== ip.family || a.cidr.prefix <= bestPrefix) continue;
    if (cidrContains(a.cidr, ip)) {
      best = a.interfaceName;
      bestPrefix = a.cidr.prefix;
    }
  }
  return best ?? dp.defaultInterface;
}

export interface RouteDecision {
  readonly local: boolean;
  readonly outInterface: string;
}

export function route(dp: NodeDataplane, dst: IPAddress): RouteDecision {
  if (isLocalAddress(dp, dst)) return { local: true, outInterface: "lo" };
  return { local: false, outInterface: interfaceFor(dp, dst) };
}

/** The source MASQUERADE picks: the first address of `family` on the outgoing interface. */
export function primaryAddress(
  dp: NodeDataplane,
  iface: string,
  family: IPFamily,
): IPAddress | undefined {
  const book = bookOf(dp);
  const on = book.primary.get(`${iface} ${family}`);
  if (on !== undefined) return on;
  const any = book.anyPrimary.get(family);
  if (any !== undefined) return any;
  return family === "IPv4" ? ipv4(0) : undefined;
}
