/**
 * Which service port an address, protocol and port belong to, as kube-proxy names it
 * (`ns/svc:port`, or `ns/svc` for an unnamed port: ServicePortName.String()): every ClusterIP,
 * external IP and load-balancer ingress address of the service, and its NodePort on any
 * address. Lets the IPVS and ipset parts of `snapshot diff` group drifts per service port.
 */
import type { Cluster } from "../../model/cluster.js";
import { canonicalIP } from "../../net/index.js";

export interface ServicePortIndex {
  /** The service port served at `address:port` (`address` undefined: a NodePort), if any. */
  lookup(protocol: string, address: string | undefined, port: number): string | undefined;
  /** Every service port name. */
  readonly names: readonly string[];
  /** The service (`ns/svc`) one of whose addresses `address` is, if any. */
  serviceAt(address: string): string | undefined;
}

const key = (protocol: string, address: string, port: number): string =>
  `${protocol.toUpperCase()} ${address} ${port}`;

export function servicePortIndex(cluster: Cluster): ServicePortIndex {
  const map = new Map<string, string>();
  const names: string[] = [];
  const services = new Map<string, string>();
  for (const svc of cluster.services) {
    const spec = svc.spec;
    if (spec === undefined) continue;
    const base = `${svc.metadata?.namespace ?? "default"}/${svc.metadata?.name ?? ""}`;
    const addresses = [
      ...(spec.clusterIPs ?? (spec.clusterIP !== undefined ? [spec.clusterIP] : [])),
      ...(spec.externalIPs ?? []),
      ...(svc.status?.loadBalancer?.ingress ?? []).flatMap((i) =>
        i.ip !== undefined && i.ip !== null ? [i.ip] : [],
      ),
    ].flatMap((a) => {
      const c = canonicalIP(a);
      return c === undefined ? [] : [c];
    });
    for (const a of addresses) if (!services.has(a)) services.set(a, base);
    for (const p of spec.ports ?? []) {
      const name = p.name !== undefined && p.name !== "" ? `${base}:${p.name}` : base;
      names.push(name);
      const protocol = p.protocol ?? "TCP";
      for (const a of addresses) map.set(key(protocol, a, p.port), name);
      if (p.nodePort !== undefined && p.nodePort !== null && p.nodePort !== 0)
        map.set(key(protocol, "*", p.nodePort), name);
    }
  }
  return {
    names,
    serviceAt: (address) => {
      const a = canonicalIP(address);
      return a === undefined ? undefined : services.get(a);
    },
    lookup(protocol, address, port) {
      const a = address === undefined ? undefined : canonicalIP(address);
      return (
        (a !== undefined ? map.get(key(protocol, a, port)) : undefined) ??
        map.get(key(protocol, "*", port))
      );
    },
  };
}
