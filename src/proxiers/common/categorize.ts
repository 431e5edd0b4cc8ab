/**
 * Endpoint selection for one service port (spec §1.4, §5.8, §5.13), mode-neutral: which
 * endpoints Cluster-policy traffic may use (after topology hints), which Local-policy traffic
 * may use, and whether usable endpoints exist anywhere in the cluster.
 */
import type { Endpoint } from "./endpoint.js";
import { compareStrings } from "./endpoint.js";
import type { ServicePort } from "./service-port.js";

export type TopologyMode = "" | "PreferSameNode" | "PreferSameZone";

export interface TopologyInput {
  readonly nodeName: string;
  /** The node's `topology.kubernetes.io/zone` label ("" when unknown). */
  readonly zone: string;
  /** Feature gate PreferSameTrafficDistribution (beta, on by default since 1.34). */
  readonly preferSameTrafficDistribution: boolean;
}

export interface CategorizedEndpoints {
  /** Empty when the service port never uses Cluster policy. */
  readonly clusterEndpoints: readonly Endpoint[];
  /** Empty when the service port never uses Local policy or has none on this node. */
  readonly localEndpoints: readonly Endpoint[];
  /** Union of the two, sorted by endpoint string. */
  readonly allReachable: readonly Endpoint[];
  /** Usable endpoints exist somewhere in the cluster (maybe not reachable from this node). */
  readonly hasAnyEndpoints: boolean;
  readonly topologyMode: TopologyMode;
}

/** The topology mode the hints ask for, or "" (no filtering). */
export function topologyModeFromHints(
  endpoints: readonly Endpoint[],
  topology: TopologyInput,
): TopologyMode {
  let hasReady = false;
  let allNodeHints = true;
  let forNode = false;
  let allZoneHints = true;
  let forZone = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    hasReady = true;
    if (ep.nodeHints.length === 0) allNodeHints = false;
    else if (ep.nodeHints.includes(topology.nodeName)) forNode = true;
    if (ep.zoneHints.length === 0) allZoneHints = false;
    else if (ep.zoneHints.includes(topology.zone)) forZone = true;
  }
  if (!hasReady) return "";
  if (topology.preferSameTrafficDistribution && allNodeHints && forNode) return "PreferSameNode";
  if (allZoneHints && forZone) return "PreferSameZone";
  return "";
}

function availableForTopology(ep: Endpoint, mode: TopologyMode, topology: TopologyInput): boolean {
  switch (mode) {
    case "":
      return true;
    case "PreferSameNode":
      return ep.nodeHints.includes(topology.nodeName);
    case "PreferSameZone":
      return ep.zoneHints.includes(topology.zone);
  }
}

const servingTerminating = (ep: Endpoint): boolean => ep.serving && ep.terminating;

export function categorizeEndpoints(
  endpoints: readonly Endpoint[],
  sp: ServicePort,
  topology: TopologyInput,
): CategorizedEndpoints {
  // The lists are read only: a service port without any shares one empty list.
  let clusterEndpoints: readonly Endpoint[] = NONE;
  let localEndpoints: readonly Endpoint[] = NONE;
  let hasAnyEndpoints = false;
  let topologyMode: TopologyMode = "";
  if (endpoints.length === 0) {
    return { clusterEndpoints, localEndpoints, allReachable: NONE, hasAnyEndpoints, topologyMode };
  }
  if (sp.usesClusterEndpoints) {
    topologyMode = topologyModeFromHints(endpoints, topology);
    clusterEndpoints = readyForTopology(endpoints, topologyMode, topology);
    // No ready endpoint anywhere (topology never empties the list): fall back to
    // serving-and-terminating ones, on any node.
    if (clusterEndpoints.length === 0) clusterEndpoints = endpoints.filter(servingTerminating);
    if (clusterEndpoints.length > 0) hasAnyEndpoints = true;
  }
  if (sp.usesLocalEndpoints) {
    let localReady = false;
    let localServingTerminating = false;
    for (const ep of endpoints) {
      if (ep.ready) {
        hasAnyEndpoints = true;
        if (ep.isLocal) localReady = true;
      } else if (servingTerminating(ep)) {
        hasAnyEndpoints = true;
        if (ep.isLocal) localServingTerminating = true;
      }
    }
    if (localReady) localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.ready);
    else if (localServingTerminating)
      localEndpoints = endpoints.filter((ep) => ep.isLocal && servingTerminating(ep));
  }
  const allReachable = unionByEndpoint(clusterEndpoints, localEndpoints);
  return { clusterEndpoints, localEndpoints, allReachable, hasAnyEndpoints, topologyMode };
}

/**
 * The ready endpoints available for the topology mode: `endpoints` itself when all are (the
 * usual case: every endpoint ready, no topology hints), so a large cluster's plan holds one list
 * per service port, not two (and no closure or copy is made per service port for it).
 */
function readyForTopology(
  endpoints: readonly Endpoint[],
  mode: TopologyMode,
  topology: TopologyInput,
): readonly Endpoint[] {
  let all = true;
  for (let i = 0; all && i < endpoints.length; i++) {
    const ep = endpoints[i] as Endpoint;
    all = ep.ready && availableForTopology(ep, mode, topology);
  }
  return all
    ? endpoints
    : endpoints.filter((ep) => ep.ready && availableForTopology(ep, mode, topology));
}

const NONE: readonly Endpoint[] = Object.freeze([]);

/** Strictly increasing `endpoint` strings (what endpointsByServicePort produces). */
function isSortedUnique(list: readonly Endpoint[]): boolean {
  for (let i = 1; i < list.length; i++) {
    if (!((list[i - 1] as Endpoint).endpoint < (list[i] as Endpoint).endpoint)) return false;
  }
  return true;
}

/**
 * The union of two endpoint lists by endpoint string (the local copy wins), sorted. Both lists
 * are normally filtered from one sorted list, so one of them is usually the answer already.
 */
function unionByEndpoint(
  cluster: readonly Endpoint[],
  local: readonly Endpoint[],
): readonly Endpoint[] {
  // The lists are read only: one may be the other (no copy).
  if (local.length === 0 && isSortedUnique(cluster)) return cluster;
  if (cluster.length === 0 && isSortedUnique(local)) return local;
  const union = new Map<string, Endpoint>();
  for (const ep of cluster) union.set(ep.endpoint, ep);
  for (const ep of local) union.set(ep.endpoint, ep);
  return [...union.values()].sort((a, b) => compareStrings(a.endpoint, b.endpoint));
}
