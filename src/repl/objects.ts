/**
 * The session's view of a Cluster as a list of API objects: the kinds a user names on the REPL
 * line (`svc`, `pods`, `netpol` ...), object lookup by `ns/name`, and the YAML text that `-f`
 * loads back to the same snapshot (the loader's defaulting is idempotent, so defaulted objects
 * round-trip).
 */
import { stringify } from "yaml";
import { objectKey, type Cluster, type ClusterObjects } from "../model/cluster.js";
import { CLUSTER_SCOPED_KINDS } from "../model/kinds.js";
import type { PlainRecord } from "../util/plain.js";

export type SessionKind =
  | "Namespace"
  | "Node"
  | "Pod"
  | "Service"
  | "EndpointSlice"
  | "NetworkPolicy"
  | "AdminNetworkPolicy"
  | "BaselineAdminNetworkPolicy";

/** Where each kind lives in a Cluster, in the order `save` writes them. */
export const KIND_FIELDS: Readonly<Record<SessionKind, keyof ClusterObjects>> = {
  Namespace: "namespaces",
  Node: "nodes",
  Pod: "pods",
  Service: "services",
  EndpointSlice: "endpointSlices",
  NetworkPolicy: "networkPolicies",
  AdminNetworkPolicy: "adminNetworkPolicies",
  BaselineAdminNetworkPolicy: "baselineAdminNetworkPolicies",
};

export const SESSION_KINDS = Object.keys(KIND_FIELDS) as SessionKind[];

/** kubectl's names and short names for each kind (plural, singular, short). */
const KIND_WORDS: Readonly<Record<SessionKind, readonly string[]>> = {
  Namespace: ["namespaces", "namespace", "ns"],
  Node: ["nodes", "node", "no"],
  Pod: ["pods", "pod", "po"],
  Service: ["services", "service", "svc"],
  EndpointSlice: ["endpointslices", "endpointslice", "eps", "endpoints", "ep"],
  NetworkPolicy: ["networkpolicies", "networkpolicy", "netpol", "policies", "policy"],
  AdminNetworkPolicy: ["adminnetworkpolicies", "adminnetworkpolicy", "anp"],
  BaselineAdminNetworkPolicy: [
    "baselineadminnetworkpolicies",
    "baselineadminnetworkpolicy",
    "banp",
  ],
};

/** Every word that names a kind, plural first (for completion). */
export const KIND_NAMES: readonly string[] = SESSION_KINDS.flatMap((k) => KIND_WORDS[k]);

export function kindOf(word: string): SessionKind | undefined {
  const w = word.toLowerCase();
  return SESSION_KINDS.find((k) => KIND_WORDS[k].includes(w) || k.toLowerCase() === w);
}

export interface SessionObject {
  readonly kind: SessionKind;
  readonly namespace?: string;
  readonly name: string;
  readonly value: PlainRecord;
}

export function isClusterScoped(kind: SessionKind): boolean {
  return CLUSTER_SCOPED_KINDS.has(kind);
}

export function keyOf(o: Pick<SessionObject, "kind" | "namespace" | "name">): string {
  return objectKey(o.kind, o.namespace, o.name);
}

/** `ns/name` for namespaced objects, `name` otherwise. */
export function refOf(o: Pick<SessionObject, "namespace" | "name">): string {
  return o.namespace === undefined ? o.name : `${o.namespace}/${o.name}`;
}

function toSessionObject(kind: SessionKind, value: unknown): SessionObject {
  const v = value as PlainRecord;
  const meta = (v["metadata"] ?? {}) as { name?: string; namespace?: string };
  return {
    kind,
    name: meta.name ?? "",
    ...(isClusterScoped(kind) ? {} : { namespace: meta.namespace ?? "default" }),
    value: v,
  };
}

export function objectsOf(cluster: Cluster, kind?: SessionKind): SessionObject[] {
  const kinds = kind === undefined ? SESSION_KINDS : [kind];
  return kinds.flatMap((k) =>
    (cluster[KIND_FIELDS[k]] as readonly unknown[]).map((v) => toSessionObject(k, v)),
  );
}

/**
 * The object `ref` names: `ns/name`, or `name` in namespace `default` (kubectl's default
 * namespace) or, when that finds nothing, the only object of that name in any namespace.
 */
export function findObject(
  cluster: Cluster,
  kind: SessionKind,
  ref: string,
): SessionObject | undefined {
  const all = objectsOf(cluster, kind);
  const slash = ref.indexOf("/");
  if (slash >= 0) {
    const ns = ref.slice(0, slash);
    const name = ref.slice(slash + 1);
    return all.find((o) => o.namespace === ns && o.name === name);
  }
  if (isClusterScoped(kind)) return all.find((o) => o.name === ref);
  const named = all.filter((o) => o.name === ref);
  return (
    named.find((o) => o.namespace === "default") ?? (named.length === 1 ? named[0] : undefined)
  );
}

export function objectsYaml(objects: readonly SessionObject[]): string {
  return objects.map((o) => stringify(o.value)).join("---\n");
}

/**
 * The objects as manifest text for the loader, not for people: each a line of JSON (YAML
 * 1.2 reads JSON, and the loader reads a JSON document with JSON.parse), or YAML for one JSON
 * would change (a number JSON cannot write: NaN, ±Infinity, -0). Writing and reading a
 * 10,000-Service session this way takes a fraction of a second; as YAML it took seconds, on
 * every edit.
 */
export function objectsManifest(objects: readonly SessionObject[]): string {
  return objects.map((o) => exactJson(o.value) ?? stringify(o.value)).join("---\n");
}

function exactJson(value: unknown): string | undefined {
  let exact = true;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))) exact = false;
    return v;
  });
  return exact ? `${text}\n` : undefined;
}
