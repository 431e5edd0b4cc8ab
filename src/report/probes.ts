/**
 * Packets that exercise every Service from outside the node: per port, its cluster IPs,
 * external IPs and load-balancer IPs, and its node port on each node IP, from a documentation
 * address (RFC 5737 / RFC 3849) that is never local. The report traces them; the REPL's diff
 * compares their outcomes before and after an edit.
 */
import type { Service } from "../model/kinds.js";
import { ipFamilyOf } from "../net/index.js";
import { parseTraceProtocol, type PacketSpec } from "../netfilter/trace/index.js";

export const OUTSIDE_SOURCE = { IPv4: "203.0.113.10", IPv6: "2001:db8::10" } as const;

function probe(proto: string, dst: string, dport: number): PacketSpec[] {
  const family = ipFamilyOf(dst);
  if (family === undefined) return [];
  return [{ proto: parseTraceProtocol(proto), src: OUTSIDE_SOURCE[family], dst, dport }];
}

export function servicePackets(
  services: readonly Service[],
  nodeIPs: readonly string[],
): PacketSpec[] {
  const out: PacketSpec[] = [];
  for (const s of services) {
    const spec = s.spec ?? {};
    const ips = [
      ...(spec.clusterIPs ?? []).filter((ip) => ip !== "None"),
      ...(spec.externalIPs ?? []),
      ...(s.status?.loadBalancer?.ingress ?? []).flatMap((i) => (i.ip !== undefined ? [i.ip] : [])),
    ];
    for (const port of spec.ports ?? []) {
      const proto = port.protocol ?? "TCP";
      for (const ip of ips) out.push(...probe(proto, ip, port.port));
      if (port.nodePort !== undefined)
        for (const ip of nodeIPs) out.push(...probe(proto, ip, port.nodePort));
    }
  }
  return out;
}

/** `sctp 203.0.113.10 -> 10.96.0.50:9999` */
export function packetKey(p: PacketSpec): string {
  // An ICMP echo request has no ports.
  if (p.proto === "icmp") return `icmp ${p.src} -> ${p.dst}`;
  const dst = p.dst.includes(":") ? `[${p.dst}]` : p.dst;
  return `${p.proto} ${p.src}${p.sport !== undefined ? `:${p.sport}` : ""} -> ${dst}:${p.dport}`;
}
