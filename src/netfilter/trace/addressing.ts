/**
 * Local addresses and routing, from the node's interface addresses only: an address is LOCAL
 * when an interface holds it (on loopback, anything in its prefix, as the kernel's local
 * table says); a destination leaves by the interface whose connected prefix holds it (longest
 * prefix), else by the default interface. No routing tables beyond that are modelled.
 */
import { cidrContains, ipv4, maskValue4, type IPAddress, type IPFamily } from "../../net/index.js";
import type { AddrType } from "../model.js";
import type { NodeDataplane } from "./dataplane.js";

export function isLocalAddress(dp: NodeDataplane, ip: IPAddress, limitIface?: string): boolean {
  for (const a of dp.addresses) {
    if (limitIface !== undefined && a.interfaceName !== limitIface) continue;
    if (a.cidr.family !== ip.family) continue;
    if (a.wholePrefixLocal ? cidrContains(a.cidr, ip) : a.cidr.address.value === ip.value)
      return true;
  }
  return false;
}

const MULTICAST4 = { lo: 0xe0000000, mask: maskValue4(4) };

function isBroadcast(dp: NodeDataplane, ip: IPAddress, limitIface?: string): boolean {
  if (ip.family !== "IPv4") return false;
  if (ip.value === 0xffffffff) return true;
  for (const a of dp.addresses) {
    if (limitIface !== undefined && a.interfaceName !== limitIface) continue;
    if (a.cidr.family !== "IPv4" || a.cidr.prefix >= 31 || a.wholePrefixLocal) continue;
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
  let best: string | undefined;
  let bestPrefix = -1;
  for (const a of dp.addresses) {
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
  const on = dp.addresses.find((a) => a.interfaceName === iface && a.cidr.family === family);
  if (on !== undefined) return on.cidr.address;
  const any = dp.addresses.find((a) => a.cidr.family === family && !a.wholePrefixLocal);
  if (any !== undefined) return any.cidr.address;
  return family === "IPv4" ? ipv4(0) : undefined;
}
