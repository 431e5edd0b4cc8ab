/**
 * Lookups over a `Cluster` snapshot. Each index is built once per snapshot (a WeakMap keyed by the
 * frozen snapshot) and returns arrays in the snapshot's own order, which the loader makes
 * deterministic (sorted by namespace, then name).
 */
import type { Cluster } from "./cluster.js";
import { objectKey } from "./cluster.js";
import type { SourcePosition } from "./issue.js";
import type { EndpointSlice, Namespace, Node, Pod } from "./kinds.js";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

interface ClusterIndex {
  readonly namespaces: ReadonlyMap<string, Namespace>;
  readonly nodes: ReadonlyMap<string, Node>;
  readonly podsByNamespace: ReadonlyMap<string, readonly Pod[]>;
  readonly slicesByService: ReadonlyMap<string, readonly EndpointSlice[]>;
}

const indexes = new WeakMap<Cluster, ClusterIndex>();

function group<T>(items: readonly T[], key: (t: T) => string | undefined): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    const list = out.get(k);
    if (list === undefined) out.set(k, [item]);
    else list.push(item);
  }
  return out;
}

function indexOf(cluster: Cluster): ClusterIndex {
  let idx = indexes.get(cluster);
  if (idx === undefined) {
    const namespaces = new Map<string, Namespace>();
    for (const ns of cluster.namespaces) {
      const name = ns.metadata?.name;
      if (name !== undefined && !namespaces.has(name)) namespaces.set(name, ns);
    }
    const nodes = new Map<string, Node>();
    for (const n of cluster.nodes) {
      const name = n.metadata?.name;
      if (name !== undefined && !nodes.has(name)) nodes.set(name, n);
    }
    idx = {
      namespaces,
      nodes,
      podsByNamespace: group(cluster.pods, (p) => p.metadata?.namespace ?? "default"),
      slicesByService: group(cluster.endpointSlices, (s) => {
        const svc = s.metadata?.labels?.[SERVICE_NAME_LABEL];
        return svc === undefined ? undefined : `${s.metadata?.namespace ?? "default"}/${svc}`;
      }),
    };
    indexes.set(cluster, idx);
  }
  return idx;
}

export function namespaceByName(cluster: Cluster, name: string): Namespace | undefined {
  return indexOf(cluster).namespaces.get(name);
}

export function podsInNamespace(cluster: Cluster, namespace: string): readonly Pod[] {
  return indexOf(cluster).podsByNamespace.get(namespace) ?? [];
}

export function nodeByName(cluster: Cluster, name: string): Node | undefined {
  return indexOf(cluster).nodes.get(name);
}

/** The slices labelled `kubernetes.io/service-name: <name>` in the namespace. */
export function slicesForService(
  cluster: Cluster,
  namespace: string,
  name: string,
): readonly EndpointSlice[] {
  return indexOf(cluster).slicesByService.get(`${namespace}/${name}`) ?? [];
}

/** Where an object was loaded from (undefined for implicit namespaces and built clusters). */
export function sourceOf(
  cluster: Cluster,
  kind: string,
  namespace: string | undefined,
  name: string,
): SourcePosition | undefined {
  return cluster.sources[objectKey(kind, namespace, name)];
}
