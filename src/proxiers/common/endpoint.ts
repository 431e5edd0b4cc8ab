/**
 * Endpoints: what kube-proxy keeps of EndpointSlices (spec §1.3), grouped per service port key
 * and sorted by their `ip:port` string in plain byte order — the order that drives statistic
 * rules, affinity rules and traces.
 */
import { formatIP, joinHostPort, parseIP, type IPFamily } from "../../net/index.js";
import type { EndpointSlice } from "../../model/kinds.js";
import { isCanonicalIPv4 } from "./canonical-ipv4.js";

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
  const lists = new Map<string, Endpoint[]>();
  slicesByServicePort(slices).forEach((sources, key) =>
    lists.set(key, endpointsOf(sources, family, nodeName)),
  );
  return lists;
}

/**
 * Where one service port's endpoints come from: the slices that name it, in (namespace, name)
 * order, each with the port number it gives (a slice that lists the port twice appears twice).
 * The first is kept in fields, the others (a service port with several slices) in arrays: a
 * large cluster keeps one of these per service port while it is planned.
 */
export class EndpointSources {
  #more: { readonly slices: EndpointSlice[]; readonly ports: number[] } | undefined;
  /** Endpoints listed over all of them (any family, duplicates included): a bound, not a count. */
  listed: number;

  constructor(
    readonly firstSlice: EndpointSlice,
    readonly firstPort: number,
  ) {
    this.listed = firstSlice.endpoints.length;
  }

  add(slice: EndpointSlice, port: number): void {
    this.#more ??= { slices: [], ports: [] };
    this.#more.slices.push(slice);
    this.#more.ports.push(port);
    this.listed += slice.endpoints.length;
  }

  get count(): number {
    return 1 + (this.#more?.slices.length ?? 0);
  }

  slice(i: number): EndpointSlice {
    return i === 0 ? this.firstSlice : (this.#more?.slices[i - 1] as EndpointSlice);
  }

  port(i: number): number {
    return i === 0 ? this.firstPort : (this.#more?.ports[i - 1] as number);
  }
}

/**
 * The endpoint sources of every service port found in `slices`, keyed by `servicePortKey`: what
 * `endpointsOf` makes a service port's endpoints from, one service port at a time (a large
 * cluster's plan then never holds every endpoint object at once).
 */
export function slicesByServicePort(
  slices: readonly EndpointSlice[],
): Map<string, EndpointSources> {
  const sorted = [...slices].sort(
    (a, b) =>
      compareStrings(a.metadata?.namespace ?? "", b.metadata?.namespace ?? "") ||
      compareStrings(a.metadata?.name ?? "", b.metadata?.name ?? ""),
  );
  const sources = new Map<string, EndpointSources>();
  for (let s = 0; s < sorted.length; s++) {
    const slice = sorted[s] as EndpointSlice;
    const serviceName = slice.metadata?.labels?.["kubernetes.io/service-name"] ?? "";
    if (serviceName === "") continue;
    if (slice.addressType !== "IPv4" && slice.addressType !== "IPv6") continue;
    const namespace = slice.metadata?.namespace ?? "default";
    const ports = slice.ports ?? [];
    for (let p = 0; p < ports.length; p++) {
      const port = ports[p] as (typeof ports)[number];
      if (port.name === undefined || port.name === null) continue;
      if (port.port === undefined || port.port === 0) continue;
      const key = servicePortKey(namespace, serviceName, port.name, port.protocol ?? "TCP");
      const entry = sources.get(key);
      if (entry === undefined) sources.set(key, new EndpointSources(slice, port.port));
      else entry.add(slice, port.port);
    }
  }
  return sources;
}

/**
 * One service port's endpoints of `family` from its sources, sorted by endpoint string, one per
 * string (see sortedUnique).
 */
export function endpointsOf(
  sources: EndpointSources,
  family: IPFamily,
  nodeName: string,
): Endpoint[] {
  // Indexed loops: no iterator result or other object per endpoint (100,000 of them in a
  // large cluster) but the endpoint itself.
  const list: Endpoint[] = [];
  const n = sources.count;
  for (let s = 0; s < n; s++) {
    const endpoints = sources.slice(s).endpoints;
    const port = sources.port(s);
    for (let e = 0; e < endpoints.length; e++) {
      const ep = endpoints[e] as (typeof endpoints)[number];
      const raw = ep.addresses[0];
      const ip = raw === undefined ? undefined : canonicalIPOfFamily(raw, family);
      if (ip === undefined) continue;
      const epNode = ep.nodeName ?? "";
      const forZones = ep.hints?.forZones;
      const forNodes = ep.hints?.forNodes;
      list.push({
        ip,
        nodeName: epNode,
        zone: ep.zone ?? "",
        isLocal: nodeName !== "" && epNode === nodeName,
        ready: ep.conditions?.ready ?? true,
        serving: ep.conditions?.serving ?? true,
        terminating: ep.conditions?.terminating ?? false,
        zoneHints:
          forZones === undefined || forZones.length === 0 ? NO_HINTS : forZones.map((z) => z.name),
        nodeHints:
          forNodes === undefined || forNodes.length === 0 ? NO_HINTS : forNodes.map((n) => n.name),
        port,
        endpoint: hostPort(ip, port),
      });
    }
  }
  return sortedUnique(list);
}

/**
 * `list` sorted by endpoint string, one endpoint per string: of duplicates (the same address in
 * two slices), the last local copy if there is one, else the first copy.
 */
function sortedUnique(list: Endpoint[]): Endpoint[] {
  let ordered = true;
  for (let i = 1; i < list.length && ordered; i++) {
    ordered = (list[i - 1] as Endpoint).endpoint < (list[i] as Endpoint).endpoint;
  }
  // Strictly increasing: sorted and free of duplicates already.
  if (ordered) return list;
  // Stable: duplicates keep their slice order.
  sortByEndpoint(list);
  let unique = true;
  for (let i = 1; i < list.length && unique; i++) {
    unique = (list[i - 1] as Endpoint).endpoint !== (list[i] as Endpoint).endpoint;
  }
  if (unique) return list;
  const out: Endpoint[] = [];
  for (let i = 0; i < list.length;) {
    let j = i;
    let chosen = list[i] as Endpoint;
    for (; j < list.length && (list[j] as Endpoint).endpoint === chosen.endpoint; j++) {
      if ((list[j] as Endpoint).isLocal) chosen = list[j] as Endpoint;
    }
    out.push(chosen);
    i = j;
  }
  return out;
}

/** Sorts by endpoint string, stably, in place. */
function sortByEndpoint(list: Endpoint[]): void {
  // A service port's slice holds a handful to a few hundred endpoints: an insertion sort in
  // place allocates nothing (Array.prototype.sort copies the list and calls a comparator).
  if (list.length > 64) {
    list.sort(byEndpoint);
    return;
  }
  for (let i = 1; i < list.length; i++) {
    const x = list[i] as Endpoint;
    let j = i - 1;
    while (j >= 0 && (list[j] as Endpoint).endpoint > x.endpoint) {
      list[j + 1] = list[j] as Endpoint;
      j--;
    }
    list[j + 1] = x;
  }
}

const byEndpoint = (a: Endpoint, b: Endpoint): number => compareStrings(a.endpoint, b.endpoint);

const SCRATCH = Buffer.allocUnsafeSlow(64);

/**
 * `joinHostPort(ip, port)` (`ip:port`, `[ip]:port` for IPv6) made as one flat string from a
 * scratch buffer. A template makes a rope of two or three strings, which the first read (the
 * sort check, the chain hash) copies flat again: twice the work and garbage, 100,000 times for
 * a large cluster.
 */
export function hostPort(ip: string, port: number): string {
  if (ip.length > 45 || !Number.isInteger(port) || port < 0 || port > 65535)
    return joinHostPort(ip, port);
  const v6 = ip.includes(":");
  let n = 0;
  if (v6) SCRATCH[n++] = 0x5b; // [
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c > 0x7f) return joinHostPort(ip, port);
    SCRATCH[n++] = c;
  }
  if (v6) SCRATCH[n++] = 0x5d; // ]
  SCRATCH[n++] = 0x3a; // :
  const digits = n + (port >= 10000 ? 5 : port >= 1000 ? 4 : port >= 100 ? 3 : port >= 10 ? 2 : 1);
  for (let i = digits - 1, p = port; i >= n; i--, p = Math.floor(p / 10))
    SCRATCH[i] = 48 + (p % 10);
  return SCRATCH.toString("latin1", 0, digits);
}

/** Shared by every endpoint without topology hints (most of them). */
const NO_HINTS: readonly string[] = Object.freeze([]);

/**
 * The canonical text of `raw` when it is an address of `family` (ParseIPSloppy's reading),
 * else undefined. A plain dotted quad is already canonical and is returned as is.
 */
function canonicalIPOfFamily(raw: string, family: IPFamily): string | undefined {
  if (isCanonicalIPv4(raw)) return family === "IPv4" ? raw : undefined;
  const addr = parseIP(raw, "lenient");
  return addr === undefined || addr.family !== family ? undefined : formatIP(addr);
}
