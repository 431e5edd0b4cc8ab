/**
 * An immutable snapshot of the cluster objects kube-netsim reasons about, after API-server
 * defaulting. Objects are frozen (deeply, as immer would); changes go through immer's `produce`
 * and give a new snapshot.
 * Indexes are computed lazily, once per snapshot, and never leak Map iteration order.
 */
import type {
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
  ClusterNetworkPolicy,
  EndpointSlice,
  Namespace,
  NetworkPolicy,
  Node,
  Pod,
  Service,
  ServiceCIDR,
} from "./kinds.js";
import type { Issue, SourcePosition } from "./issue.js";
import type { FieldPositions } from "./field-positions.js";
import { deepFreeze } from "../util/plain.js";

export interface Cluster {
  readonly namespaces: readonly Namespace[];
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
  readonly services: readonly Service[];
  /** Includes slices converted from Endpoints objects. */
  readonly endpointSlices: readonly EndpointSlice[];
  readonly networkPolicies: readonly NetworkPolicy[];
  readonly adminNetworkPolicies: readonly AdminNetworkPolicy[];
  readonly baselineAdminNetworkPolicies: readonly BaselineAdminNetworkPolicy[];
  /** policy.networking.k8s.io/v1alpha2, both tiers. */
  readonly clusterNetworkPolicies: readonly ClusterNetworkPolicy[];
  /** networking.k8s.io/v1 ServiceCIDRs (the nftables proxier drops unallocated cluster IPs). */
  readonly serviceCIDRs?: readonly ServiceCIDR[];
  /** Where each object came from, keyed by `objectKey`. */
  readonly sources: Readonly<Record<string, SourcePosition>>;
  /** Warnings found while loading (unknown kinds, unknown fields, cross-object checks). */
  readonly warnings: readonly Issue[];
  /**
   * Positions of every field of each loaded object, keyed by `objectKey` then by the formatted
   * field path ("" for the object); `positionOf` finds the nearest recorded ancestor (fields
   * reached through a YAML alias are not recorded). Absent for clusters built without the loader.
   */
  readonly fieldSources?: Readonly<Record<string, FieldPositions>>;
}

export interface ClusterObjects {
  namespaces?: readonly Namespace[];
  nodes?: readonly Node[];
  pods?: readonly Pod[];
  services?: readonly Service[];
  endpointSlices?: readonly EndpointSlice[];
  networkPolicies?: readonly NetworkPolicy[];
  adminNetworkPolicies?: readonly AdminNetworkPolicy[];
  baselineAdminNetworkPolicies?: readonly BaselineAdminNetworkPolicy[];
  clusterNetworkPolicies?: readonly ClusterNetworkPolicy[];
  serviceCIDRs?: readonly ServiceCIDR[];
}

export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === ""
    ? `${kind}/${name}`
    : `${kind}/${namespace}/${name}`;
}

/**
 * The loader's snapshot (load.ts): makeCluster's, without its copies. The loader hands over
 * lists and records it made and keeps no reference to, so nothing need be copied; on a
 * 10,000-Service load, copying `sources` and `fieldSources` (20,000 keys each) was a fifth of
 * building the snapshot. Their values are deferred positions (deferred.ts), which a deep freeze
 * leaves as they are (not plain data): the two records are frozen on their own.
 */
export function loadedCluster(
  objects: Required<ClusterObjects>,
  extra: {
    sources: Record<string, SourcePosition>;
    fieldSources: Record<string, FieldPositions>;
    warnings: readonly Issue[];
  },
): Cluster {
  return Object.freeze({
    namespaces: deepFreeze(objects.namespaces),
    nodes: deepFreeze(objects.nodes),
    pods: deepFreeze(objects.pods),
    services: deepFreeze(objects.services),
    endpointSlices: deepFreeze(objects.endpointSlices),
    networkPolicies: deepFreeze(objects.networkPolicies),
    adminNetworkPolicies: deepFreeze(objects.adminNetworkPolicies),
    baselineAdminNetworkPolicies: deepFreeze(objects.baselineAdminNetworkPolicies),
    clusterNetworkPolicies: deepFreeze(objects.clusterNetworkPolicies),
    serviceCIDRs: deepFreeze(objects.serviceCIDRs),
    sources: Object.freeze(extra.sources),
    warnings: deepFreeze(extra.warnings),
    fieldSources: Object.freeze(extra.fieldSources),
  });
}

/** A snapshot from already-defaulted objects (the loader defaults; tests may build directly). */
export function makeCluster(
  objects: ClusterObjects,
  extra: {
    sources?: Record<string, SourcePosition>;
    fieldSources?: Record<string, FieldPositions>;
    warnings?: readonly Issue[];
  } = {},
): Cluster {
  return deepFreeze({
    namespaces: [...(objects.namespaces ?? [])],
    nodes: [...(objects.nodes ?? [])],
    pods: [...(objects.pods ?? [])],
    services: [...(objects.services ?? [])],
    endpointSlices: [...(objects.endpointSlices ?? [])],
    networkPolicies: [...(objects.networkPolicies ?? [])],
    adminNetworkPolicies: [...(objects.adminNetworkPolicies ?? [])],
    baselineAdminNetworkPolicies: [...(objects.baselineAdminNetworkPolicies ?? [])],
    clusterNetworkPolicies: [...(objects.clusterNetworkPolicies ?? [])],
    serviceCIDRs: [...(objects.serviceCIDRs ?? [])],
    sources: { ...(extra.sources ?? {}) },
    warnings: [...(extra.warnings ?? [])],
    ...(extra.fieldSources !== undefined ? { fieldSources: { ...extra.fieldSources } } : {}),
  });
}
