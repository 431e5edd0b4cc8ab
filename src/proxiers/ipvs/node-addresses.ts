/**
 * Which local addresses the IPVS proxier sees (spec §1 steps 5–6). Unlike the iptables proxier,
 * which matches NodePorts with `--dst-type LOCAL` at packet time, IPVS needs one virtual server
 * per node address, so the addresses are read at sync time:
 * - `nodeAddressSet`: every address of this family on every interface except kube-ipvs0, minus
 *   loopback and IPv6 link-local (IPv4 169.254/16 stays).
 * - NodePort addresses: all of those when nodePortAddresses matches everything, otherwise the
 *   interface addresses inside the configured CIDRs, minus loopback.
 */
import {
  cidrContains,
  formatIP,
  parseCIDR,
  parseCIDROrHost,
  parseIP,
  type IPFamily,
} from "../../net/index.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { isLoopbackIP, type NodePortAddresses } from "../common/index.js";

export const DUMMY_DEVICE = "kube-ipvs0";

const IPV6_LINK_LOCAL = parseCIDR("fe80::/10");

/**
 * An address of `family` the proxier of that family counts as the node's (netlink_linux.go
 * `isValidForSet`): not loopback, not IPv6 link-local. Also which of kube-ipvs0's addresses it
 * considers bound.
 */
export function isValidNodeAddress(ip: string, family: IPFamily): boolean {
  const a = parseIP(ip, "lenient");
  if (a === undefined || a.family !== family) return false;
  if (isLoopbackIP(ip)) return false;
  if (a.family === "IPv6" && IPV6_LINK_LOCAL !== undefined && cidrContains(IPV6_LINK_LOCAL, a))
    return false;
  return true;
}

/** Canonical addresses, deduplicated, in interface order. */
export function nodeAddressSet(node: NodeEnvironment, family: IPFamily): string[] {
  const out: string[] = [];
  for (const iface of node.interfaces) {
    if (iface.name === DUMMY_DEVICE) continue;
    for (const addr of iface.addresses) {
      const c = parseCIDROrHost(addr);
      if (c === undefined) continue;
      const ip = formatIP(c.address);
      if (isValidNodeAddress(ip, family) && !out.includes(ip)) out.push(ip);
    }
  }
  return out;
}

export function nodePortIPs(
  node: NodeEnvironment,
  family: IPFamily,
  configured: NodePortAddresses,
): string[] {
  if (configured.kind === "all") return nodeAddressSet(node, family);
  return configured.ips.filter((ip) => !isLoopbackIP(ip));
}
