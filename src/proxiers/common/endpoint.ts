/**
 * Endpoints: what kube-proxy keeps of EndpointSlices (spec §1.3), grouped per service port key
 * and sorted by their `ip:port` string in plain byte order — the order that drives statistic
 * rules, affinity rules and traces.
 */
import { formatIP, joinHostPort, parseIP, type IPFamily } from "../../net/index.js";
import type { EndpointSlice } from "../../model/kinds.js";

export interface Endpoint {
  /** Canonical IP. */
  readonly ip: string;
  readonly port: number;
  /** `ip:port`, or `[ip]:port` for IPv6. */
  readonly endpoint: string;
  readonly nodeName: string;
  readonly zone: string;
  readonly isLocal: boolean;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  readonly zoneHints: readonly string[];
  readonly nodeHints: readonly string[];
}

/** Identifies a service port across Services and EndpointSlices. */
export function servicePortKey(
  namespace: string,
  serviceName: string,
  portName: string,
  protocol: string,
): string {
  return `${namespace}/${serviceName}\u0000${portName}\u0000${protocol}`;
}

/** Byte-order comparison of strings (what Go's `<` on strings does for ASCII). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Endpoints of every service port found in `slices`, for one family and node, keyed by
 * `servicePortKey`. Slices are read in (namespace, name) order so that duplicate endpoints
 * resolve the same way whatever the input order; a local copy wins, as upstream.
 */
export function endpointsByServicePort(
  slices: readonly EndpointSlice[],
  family: IPFamily,
  nodeName: string,
): Map<string, Endpoint[]> {
  const sorted = [...slices].sort(
    (a, b) =>
      compareStrings(a.metadata?.namespace ?? "", b.metadata?.namespace ?? "") ||
      compareStrings(a.metadata?.name ?? "", b.metadata?.name ?? ""),
  );
  const sets = new Map<string, Map<string, Endpoint>>();
  for (const slice of sorted) {
    const serviceName = slice.metadata?.labels?.["kubernetes.io/service-name"] ?? "";
    if (serviceName === "") continue;
    if (slice.addressType !== "IPv4" && slice.addressType !== "IPv6") continue;
    const namespace = slice.metadata?.namespace ?? "default";
    // Endpoint attributes do not depend on the port: read each address once per slice.
    const base: Omit<Endpoint, "port" | "endpoint">[] = [];
    for (const ep of slice.endpoints) {
      const raw = ep.addresses[0];
      const addr = raw === undefined ? undefined : parseIP(raw, "lenient");
      if (addr === undefined || addr.family !== family) continue;
      const epNode = ep.nodeName ?? "";
      base.push({
        ip: formatIP(addr),
        nodeName: epNode,
        zone: ep.zone ?? "",
        isLocal: nodeName !== "" && epNode === nodeName,
        ready: ep.conditions?.ready ?? true,
        serving: ep.conditions?.serving ?? true,
        terminating: ep.conditions?.terminating ?? false,
        zoneHints: (ep.hints?.forZones ?? []).map((z) => z.name),
        nodeHints: (ep.hints?.forNodes ?? []).map((n) => n.name),
      });
    }
    for (const port of slice.ports ?? []) {
      if (port.name === undefined || port.name === null) continue;
      if (port.port === undefined || port.port === 0) continue;
      const key = servicePortKey(namespace, serviceName, port.name, port.protocol ?? "TCP");
      let set = sets.get(key);
      if (set === undefined) {
        set = new Map();
        sets.set(key, set);
      }
      for (const b of base) {
        const endpoint: Endpoint = {
          ...b,
          port: port.port,
          endpoint: joinHostPort(b.ip, port.port),
        };
        if (!set.has(endpoint.endpoint) || b.isLocal) set.set(endpoint.endpoint, endpoint);
      }
    }
  }
  const out = new Map<string, Endpoint[]>();
  for (const [key, set] of sets) {
    out.set(
      key,
      [...set.values()].sort((a, b) => compareStrings(a.endpoint, b.endpoint)),
    );
  }
  return out;
}
