/**
 * `nodePortAddresses` (spec §4.10): which local addresses accept NodePorts, per family. CIDRs
 * of the other family are ignored; none left (or a zero CIDR) means "every local address".
 */
import {
  cidrContains,
  formatIP,
  parseCIDROrHost,
  parseIP,
  type IPFamily,
} from "../../net/index.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { parseCIDRSloppy } from "./service-port.js";

export type NodePortAddresses =
  | { readonly kind: "all"; readonly containsIPv4Loopback: boolean }
  | {
      readonly kind: "addresses";
      /** Local addresses inside a configured CIDR, in interface order, deduplicated. */
      readonly ips: readonly string[];
      readonly containsIPv4Loopback: boolean;
    };

const IPV4_LOOPBACK_START = parseIP("127.0.0.0");

/**
 * `primary` stands for the node's own IPs (cmd/kube-proxy expands it to host CIDRs before the
 * proxier sees it).
 */
export function expandNodePortAddresses(
  configured: readonly string[],
  nodeIPs: readonly string[],
): string[] {
  return configured.flatMap((s) =>
    s === "primary"
      ? nodeIPs.flatMap((ip) => {
          const a = parseIP(ip, "lenient");
          return a === undefined ? [] : [`${formatIP(a)}/${a.family === "IPv4" ? 32 : 128}`];
        })
      : [s],
  );
}

export function nodePortAddressesFor(
  configured: readonly string[],
  family: IPFamily,
  node: NodeEnvironment,
): NodePortAddresses {
  const cidrs = expandNodePortAddresses(configured, node.nodeIPs)
    .map((s) => parseCIDRSloppy(s.trim()))
    .filter((c) => c !== undefined && c.family === family);
  if (cidrs.length === 0) return { kind: "all", containsIPv4Loopback: family === "IPv4" };
  let containsIPv4Loopback = false;
  for (const c of cidrs) {
    if (c === undefined) continue;
    if (c.family === "IPv4" && IPV4_LOOPBACK_START !== undefined) {
      const isLoopback = c.address.family === "IPv4" && c.address.value >>> 24 === 127;
      if (isLoopback || cidrContains(c, IPV4_LOOPBACK_START)) containsIPv4Loopback = true;
    }
    if (c.prefix === 0) return { kind: "all", containsIPv4Loopback };
  }
  const ips: string[] = [];
  for (const c of cidrs) {
    if (c === undefined) continue;
    for (const iface of node.interfaces) {
      for (const addr of iface.addresses) {
        const host = parseCIDROrHost(addr);
        if (host === undefined || !cidrContains(c, host.address)) continue;
        const ip = formatIP(host.address);
        if (!ips.includes(ip)) ips.push(ip);
      }
    }
  }
  return { kind: "addresses", ips, containsIPv4Loopback };
}

export function isLoopbackIP(ip: string): boolean {
  const a = parseIP(ip, "lenient");
  if (a === undefined) return false;
  return a.family === "IPv4" ? a.value >>> 24 === 127 : a.value === 1n;
}
