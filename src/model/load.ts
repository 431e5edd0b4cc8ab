/**
 * The manifest loader: text → a defaulted, validated `Cluster` snapshot. Pure (no I/O; see
 * load-files.ts for reading paths). The stages follow the API server's order for each object:
 * decode (with positions) → shape check → defaulting → validation; then the cluster-wide steps:
 * duplicate objects, Endpoints mirroring, implicit namespaces, cross-object warnings.
 * Every problem becomes an `Issue`; with `validation: "strict"` (the default) any error throws one
 * `ValidationError` listing all issues, with `"warn"` errors are downgraded to warnings and the
 * objects are kept.
 */
import { loadedCluster, objectKey, type Cluster } from "./cluster.js";
import {
  defaultAdminNetworkPolicy,
  defaultEndpoints,
  defaultEndpointSlice,
  defaultNamespace,
  defaultNetworkPolicy,
  defaultNode,
  defaultPod,
  defaultService,
  NAMESPACE_NAME_LABEL,
} from "./defaults.js";
import { deferredCall } from "./deferred.js";
import { mirrorEndpoints } from "./endpoints-mirroring.js";
import type { FeatureGates } from "./feature-gates.js";
import { positionOf, type FieldPositions } from "./field-positions.js";
import {
  formatFieldPath,
  ValidationError,
  type Issue,
  type ObjectRef,
  type SourcePosition,
} from "./issue.js";
import type {
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
  ClusterNetworkPolicy,
  EndpointSlice,
  Endpoints,
  KindName,
  ServiceCIDR,
  Namespace,
  NetworkPolicy,
  Node,
  Pod,
  Service,
} from "./kinds.js";
import { CLUSTER_SCOPED_KINDS } from "./kinds.js";
import { crossObjectWarnings } from "./validation/cross-object.js";
import { checkShape, validateObject } from "./validation/validate-object.js";
import type { FieldIssue } from "./validation/field-issue.js";
import type { ValidationContext } from "./validation/context.js";
import {
  readManifests,
  streamManifests,
  type ManifestInput,
  type ObjectSink,
  type RawObject,
  type ReadManifests,
} from "./yaml-documents.js";
import { asRecord, deepFreeze, type PlainRecord } from "../util/plain.js";

export type ValidationMode = "strict" | "warn";

export interface LoadOptions {
  /** "strict" (default): errors throw. "warn": errors become warnings and loading goes on. */
  readonly validation?: ValidationMode;
  readonly featureGates?: FeatureGates;
}

/** apiVersion each kind is served at. */
const API_VERSIONS: Readonly<Record<KindName, string>> = {
  Namespace: "v1",
  Node: "v1",
  Pod: "v1",
  Service: "v1",
  Endpoints: "v1",
  EndpointSlice: "discovery.k8s.io/v1",
  NetworkPolicy: "networking.k8s.io/v1",
  AdminNetworkPolicy: "policy.networking.k8s.io/v1alpha1",
  BaselineAdminNetworkPolicy: "policy.networking.k8s.io/v1alpha1",
  ClusterNetworkPolicy: "policy.networking.k8s.io/v1alpha2",
  ServiceCIDR: "networking.k8s.io/v1",
};

const DEFAULTERS: Readonly<Record<KindName, (o: PlainRecord) => void>> = {
  Namespace: defaultNamespace,
  Node: defaultNode,
  Pod: defaultPod,
  Service: defaultService,
  Endpoints: defaultEndpoints,
  EndpointSlice: defaultEndpointSlice,
  NetworkPolicy: defaultNetworkPolicy,
  AdminNetworkPolicy: defaultAdminNetworkPolicy,
  BaselineAdminNetworkPolicy: defaultAdminNetworkPolicy,
  // The v1alpha2 CRD has no `default:` markers: nothing to fill in.
  ClusterNetworkPolicy: () => undefined,
  ServiceCIDR: () => undefined,
};

/**
 * kube-netsim's own config kinds (`--node-env`, `--proxy-config`) often sit next to the manifests
 * in one directory; `-f DIR` skips them without a warning.
 */
const CONFIG_KINDS: ReadonlySet<string> = new Set(["NodeEnvironment", "KubeProxyConfiguration"]);

function isKindName(k: string): k is KindName {
  return Object.prototype.hasOwnProperty.call(API_VERSIONS, k);
}

/**
 * Fields that validation reports under another spelling than the user wrote: the plural fields
 * the API server fills from their singular form, and upstream's capitalised
 * `LoadBalancerSourceRanges` path.
 */
const WRITTEN_AS: Readonly<Record<string, { readonly field: string; readonly indexed: boolean }>> =
  {
    clusterIPs: { field: "clusterIP", indexed: true },
    podIPs: { field: "podIP", indexed: true },
    hostIPs: { field: "hostIP", indexed: true },
    podCIDRs: { field: "podCIDR", indexed: true },
    LoadBalancerSourceRanges: { field: "loadBalancerSourceRanges", indexed: false },
  };

/** The position of exactly `path`, or of the field the user wrote for it (see WRITTEN_AS). */
function exactPosition(
  positions: FieldPositions,
  path: readonly (string | number)[],
): SourcePosition | undefined {
  const direct = positions[formatFieldPath(path)];
  if (direct !== undefined) return direct;
  const i = path.findIndex((p) => typeof p === "string" && WRITTEN_AS[p] !== undefined);
  if (i === -1) return undefined;
  const alias = WRITTEN_AS[path[i] as string]!;
  const rest = alias.indexed ? path.slice(i + 2) : path.slice(i + 1);
  // podIPs[i].ip was written as podIP.
  if (alias.indexed && rest.length > 0 && !(rest.length === 1 && rest[0] === "ip"))
    return undefined;
  return positions[
    formatFieldPath([...path.slice(0, i), alias.field, ...(alias.indexed ? [] : rest)])
  ];
}

/** Where an object starts (a deferredCall's function: no closure per object). */
function objectSource(positions: FieldPositions, file: string): SourcePosition {
  return positionOf(positions, []) ?? { file, line: 1, col: 1 };
}

/** One loaded object, before it is sorted into the snapshot. */
export interface LoadedObject {
  readonly kind: KindName;
  readonly ref: ObjectRef;
  readonly value: PlainRecord;
  readonly source: SourcePosition;
  readonly positions: FieldPositions;
}

/**
 * Decodes and loads in one pass: each object is checked, defaulted, validated and frozen as soon
 * as its document is read (streamManifests), while its fields are still in the processor's
 * caches, rather than after the whole file is decoded, when they have left them (and the
 * garbage collector has moved them). The outcome is clusterFromManifests(readManifests(inputs)):
 * the same objects, issues and positions in the same order (test/model/load-fast.test.ts checks
 * it as a property). Where a file turns out to need reading whole after some of its objects were
 * loaded (yaml-documents.ts), that is what happens, from the start.
 */
export function parseCluster(inputs: readonly ManifestInput[], opts: LoadOptions = {}): Cluster {
  const loader = new ClusterLoader(opts);
  const readIssues = streamManifests(inputs, loader);
  if (readIssues === undefined) return clusterFromManifests(readManifests(inputs), opts);
  return loader.finish(readIssues);
}

/** parseCluster after decoding (the tests give it the output of each decoding path). */
export function clusterFromManifests(read: ReadManifests, opts: LoadOptions = {}): Cluster {
  const loader = new ClusterLoader(opts);
  for (const raw of read.objects) loader.add(raw);
  return loader.finish(read.issues);
}

/** The position of `path` in `raw`, or of the nearest field that has one, or of the object. */
function issueSource(
  raw: RawObject,
  src: SourcePosition,
  path: readonly (string | number)[],
): SourcePosition {
  return exactPosition(raw.positions, path) ?? positionOf(raw.positions, path) ?? src;
}

/**
 * The objects of a load as they come (`add`, in the order of the input), then the cluster-wide
 * steps (`finish`). Issues keep the order the API server's stages give them: the decoding
 * problems first, then each object's.
 */
class ClusterLoader implements ObjectSink {
  private readonly mode: ValidationMode;
  private readonly ctx: ValidationContext;
  private readonly issues: Issue[] = [];
  private readonly loaded: LoadedObject[] = [];
  // By objectKey: where each loaded object starts (also how a second one with its key is found)
  // and its field positions.
  private readonly sources: Record<string, SourcePosition> = {};
  private readonly fieldSources: Record<string, FieldPositions> = {};

  constructor(opts: LoadOptions) {
    this.mode = opts.validation ?? "strict";
    this.ctx = { featureGates: opts.featureGates ?? {} };
  }

  /** Loads one decoded object: kind checks, shape check, defaulting, validation, freezing. */
  add(raw: RawObject): void {
    const issues = this.issues;
    const value = raw.value;
    // Positions are computed only when read (see deferred.ts): most objects have nothing to report.
    const src = deferredCall(objectSource, raw.positions, raw.file);
    const kind = value["kind"];
    const apiVersion = value["apiVersion"];
    if (typeof kind !== "string" || kind === "") {
      issues.push({
        code: "missing-kind",
        severity: "error",
        message: "Object 'Kind' is missing",
        source: issueSource(raw, src, ["kind"]),
        path: [],
      });
      return;
    }
    if (CONFIG_KINDS.has(kind)) return;
    if (!isKindName(kind)) {
      issues.push({
        code: "unknown-kind",
        severity: "warning",
        message: `kind "${kind}"${typeof apiVersion === "string" ? ` (${apiVersion})` : ""} is not modelled; ignored`,
        source: src,
        path: [],
      });
      return;
    }
    if (typeof apiVersion !== "string" || apiVersion === "") {
      issues.push({
        code: "required",
        severity: "error",
        message: `Object 'apiVersion' is missing (expected "${API_VERSIONS[kind]}")`,
        source: src,
        path: [],
      });
      return;
    }
    if (apiVersion !== API_VERSIONS[kind]) {
      issues.push({
        code: "unknown-kind",
        severity: "error",
        message: `no matches for kind "${kind}" in version "${apiVersion}" (expected "${API_VERSIONS[kind]}")`,
        source: issueSource(raw, src, ["apiVersion"]),
        path: [],
      });
      return;
    }

    const metaForRef = asRecord(value["metadata"]);
    const rawName = metaForRef?.["name"];
    const rawNs = metaForRef?.["namespace"];
    const clusterScoped = CLUSTER_SCOPED_KINDS.has(kind);
    const name = typeof rawName === "string" ? rawName : "";
    const namespace = clusterScoped
      ? undefined
      : typeof rawNs === "string" && rawNs !== ""
        ? rawNs
        : "default";
    const ref: ObjectRef = namespace === undefined ? { kind, name } : { kind, namespace, name };

    this.report(checkShape(kind, value), raw, src, ref);
    const meta = asRecord(value["metadata"]) ?? {};
    value["metadata"] = meta;
    if (typeof meta["name"] !== "string" || meta["name"] === "") {
      this.report(
        [
          {
            code: "required",
            severity: "error",
            message: "Required value: name or generateName is required",
            path: ["metadata", "name"],
          },
        ],
        raw,
        src,
        ref,
      );
      return;
    }
    if (namespace === undefined) delete meta["namespace"];
    else meta["namespace"] = namespace;

    const key = objectKey(kind, namespace, name);
    const first = this.sources[key];
    if (first !== undefined) {
      this.report(
        [
          {
            code: "duplicate",
            severity: "error",
            message: `Duplicate value: ${kind} ${namespace === undefined ? "" : `${namespace}/`}${name} is already defined at ${first.file}:${first.line}:${first.col}`,
            path: ["metadata", "name"],
          },
        ],
        raw,
        src,
        ref,
      );
      return;
    }
    this.sources[key] = src;
    this.fieldSources[key] = raw.positions;

    DEFAULTERS[kind](value);
    this.report(validateObject(kind, value, this.ctx), raw, src, ref);
    // Final from here on (later steps read it or copy from it): frozen now, while it is still in
    // the processor's cache, rather than in one walk over the whole snapshot at the end.
    deepFreeze(value);
    this.loaded.push({ kind, ref, value, source: src, positions: raw.positions });
  }

  /** The issues of one object's checks, positioned. */
  private report(
    found: readonly FieldIssue[],
    raw: RawObject,
    src: SourcePosition,
    ref: ObjectRef,
  ): void {
    for (const fi of found)
      this.issues.push({
        code: fi.code,
        severity: fi.severity,
        message: fi.message,
        source: issueSource(raw, src, fi.path),
        object: ref,
        path: fi.path,
      });
  }

  /** The snapshot, after the cluster-wide steps; `readIssues`: the decoding's problems. */
  finish(readIssues: readonly Issue[]): Cluster {
    const { loaded, sources, fieldSources, mode } = this;
    const issues = [...readIssues, ...this.issues];
    const bucket = <T>(kind: KindName): T[] =>
      loaded.filter((o) => o.kind === kind).map((o) => o.value as unknown as T);
    const namespaces = bucket<Namespace>("Namespace");
    const services = bucket<Service>("Service");
    const endpointSlices = bucket<EndpointSlice>("EndpointSlice");

    // Endpoints → EndpointSlices, once every Service is known.
    const serviceByKey = new Map(
      services.map((s) => [`${s.metadata?.namespace}/${s.metadata?.name}`, s]),
    );
    for (const o of loaded.filter((x) => x.kind === "Endpoints")) {
      const ep = o.value as unknown as Endpoints;
      const outcome = mirrorEndpoints(ep, serviceByKey.get(`${o.ref.namespace}/${o.ref.name}`));
      if (outcome.kind === "skipped") {
        issues.push({
          code: "cross-object",
          severity: "warning",
          message: `not mirrored to EndpointSlices: ${outcome.reason}`,
          source: o.source,
          object: o.ref,
          path: [],
        });
        continue;
      }
      for (const slice of outcome.slices) {
        const key = objectKey(
          "EndpointSlice",
          slice.metadata?.namespace,
          slice.metadata?.name ?? "",
        );
        if (sources[key] !== undefined) continue;
        sources[key] = o.source;
        endpointSlices.push(slice);
      }
    }

    // Namespaces referenced but not declared exist, with only the name label.
    const declared = new Set(namespaces.map((n) => n.metadata?.name));
    for (const o of loaded) {
      const ns = o.ref.namespace;
      if (ns === undefined || declared.has(ns)) continue;
      declared.add(ns);
      namespaces.push({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: ns, labels: { [NAMESPACE_NAME_LABEL]: ns } },
      });
    }

    const objects = {
      namespaces,
      nodes: bucket<Node>("Node"),
      pods: bucket<Pod>("Pod"),
      services,
      endpointSlices,
      networkPolicies: bucket<NetworkPolicy>("NetworkPolicy"),
      adminNetworkPolicies: bucket<AdminNetworkPolicy>("AdminNetworkPolicy"),
      baselineAdminNetworkPolicies: bucket<BaselineAdminNetworkPolicy>(
        "BaselineAdminNetworkPolicy",
      ),
      clusterNetworkPolicies: bucket<ClusterNetworkPolicy>("ClusterNetworkPolicy"),
      serviceCIDRs: bucket<ServiceCIDR>("ServiceCIDR"),
    };
    issues.push(...crossObjectWarnings(objects, loaded, serviceByKey));

    const final =
      mode === "warn"
        ? issues.map((i) => (i.severity === "error" ? { ...i, severity: "warning" as const } : i))
        : issues;
    if (final.some((i) => i.severity === "error")) throw new ValidationError(final);
    return loadedCluster(objects, { sources, fieldSources, warnings: final });
  }
}
