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
    const base: EndpointBase[] = [];
    for (const ep of slice.endpoints) {
      const raw = ep.addresses[0];
      const ip = raw === undefined ? undefined : canonicalIPOfFamily(raw, family);
      if (ip === undefined) continue;
      const epNode = ep.nodeName ?? "";
      const forZones = ep.hints?.forZones;
      const forNodes = ep.hints?.forNodes;
      base.push({
        ip,
        nodeName: epNode,
        zone: ep.zone ?? "",
        isLocal: nodeName !== "" && epNode === nodeName,
        ready: ep.conditions?.ready ?? true,
        serving: ep.conditions?.serving ?? true,
        terminating: ep.conditions?.terminating ?? false,
        zoneHints: forZones === undefined || forZones.length === 0 ? NO_HINTS : forZones.map((z) => z.name),
        nodeHints: forNodes === undefined || forNodes.length === 0 ? NO_HINTS : forNodes.map((n) => n.name),
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
        // Spelled out rather than spread: this runs once per endpoint of a large cluster.
        const endpoint: Endpoint = {
          ip: b.ip,
          nodeName: b.nodeName,
          zone: b.zone,
          isLocal: b.isLocal,
          ready: b.ready,
          serving: b.serving,
          terminating: b.terminating,
          zoneHints: b.zoneHints,
          nodeHints: b.nodeHints,
          port: port.port,
          endpoint: joinHostPort(b.ip, port.port),
        };
        if (b.isLocal || !set.has(endpoint.endpoint)) set.set(endpoint.endpoint, endpoint);
      }
    }
  }
  const out = new Map<string, Endpoint[]>();
  for (const [key, set] of sets) out.set(key, sortByEndpoint([...set.values()]));
  return out;
}

type EndpointBase = Omit<Endpoint, "port" | "endpoint">;

/** Shared by every endpoint without topology hints (most of them). */
const NO_HINTS: readonly string[] = Object.freeze([]);

/** Sorts endpoints with distinct `endpoint` strings by that string, in place. */
function sortByEndpoint(list: Endpoint[]): Endpoint[] {
  // Usually already in order for small slices; checking is cheaper than sorting.
  for (let i = 1; i < list.length; i++) {
    if ((list[i - 1] as Endpoint).endpoint > (list[i] as Endpoint).endpoint) {
      return list.sort((a, b) => compareStrings(a.endpoint, b.endpoint));
    }
  }
  return list;
}

/**
 * The canonical text of `raw` when it is an address of `family` (ParseIPSloppy's reading),
 * else undefined. A plain dotted quad is already canonical and is returned as is.
 */
function canonicalIPOfFamily(raw: string, family: IPFamily): string | undefined {
  if (isCanonicalIPv4(raw)) return family === "IPv4" ? raw : undefined;
  const addr = parseIP(raw, "lenient");
  return addr === undefined || addr.family !== family ? undefined : formatIP(addr);
}

/** Four decimal octets 0-255 without leading zeros: what formatIP prints for IPv4. */
function isCanonicalIPv4(s: string): boolean {
  let octets = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46; /* "." ends the last octet */
    if (c === 46) {
      if (digits === 0 || value > 255) return false;
      octets++;
      digits = 0;
      value = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && value === 0) return false; // leading zero
      value = value * 10 + (c - 48);
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return octets === 4;
}
