/**
 * `clusterObjects({services, pods, policies, families})` / `cluster(...)`: a whole cluster
 * composed from the other arbitraries — namespaces x, y, z (`namespace`), pods in them (`pod`,
 * SCTP-biased containerPorts, addresses in `families`), services (`service`, each in one of the
 * namespaces, stacks drawn from `families`, with their EndpointSlices most of the time:
 * `endpointSlices`, one per family of the Service) and NetworkPolicies
 * (`networkPolicy`). `cluster` hands the objects to the loader (the `cluster()` builder), so
 * defaulting and validation are the API server's.
 */
import fc from "fast-check";
import type { Cluster } from "../../model/cluster.js";
import type { EndpointSlice, Namespace, NetworkPolicy, Pod, Service } from "../../model/kinds.js";
import { cluster as buildCluster } from "../builders/cluster.js";
import { endpointSlices } from "./endpointSlice.js";
import { namespaceNamed } from "./namespace.js";
import { networkPolicy } from "./networkPolicy.js";
import { pod, type Family } from "./pod.js";
import { service } from "./service.js";

export interface ClusterConstraints {
  /** Maximum services; default 3. */
  readonly services?: number;
  /** Maximum pods per namespace; default 3. */
  readonly pods?: number;
  /** Maximum NetworkPolicies; default 3. */
  readonly policies?: number;
  /**
   * The cluster's IP families; default IPv4. Pods have an address in each; with IPv6, Services
   * are SingleStack in either family, PreferDualStack or RequireDualStack, with one
   * EndpointSlice per family of theirs.
   */
  readonly families?: readonly Family[];
}

export interface ClusterObjects {
  readonly namespaces: readonly Namespace[];
  readonly pods: readonly Pod[];
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
  readonly networkPolicies: readonly NetworkPolicy[];
}

const NAMESPACES = ["x", "y", "z"] as const;

function tupleOf<T>(arbs: readonly fc.Arbitrary<T>[]): fc.Arbitrary<T[]> {
  return arbs.length === 0 ? fc.constant([]) : fc.tuple(...arbs).map((t) => [...t]);
}

export function clusterObjects(c: ClusterConstraints = {}): fc.Arbitrary<ClusterObjects> {
  const families = c.families ?? ["IPv4"];
  const sizes = fc.record({
    podCounts: fc.tuple(...NAMESPACES.map(() => fc.integer({ min: 0, max: c.pods ?? 3 }))),
    services: fc.array(fc.constantFrom(...NAMESPACES), { maxLength: c.services ?? 3 }),
    policies: fc.array(fc.constantFrom(...NAMESPACES), { maxLength: c.policies ?? 3 }),
  });
  return sizes.chain(({ podCounts, services, policies }) =>
    fc
      .record({
        namespaces: tupleOf(NAMESPACES.map((n) => namespaceNamed(n))),
        pods: tupleOf(
          NAMESPACES.flatMap((ns, ni) =>
            Array.from({ length: podCounts[ni] ?? 0 }, (_, i) =>
              pod({ namespace: ns, namespaceIndex: ni, index: i, families }),
            ),
          ),
        ),
        withSlices: tupleOf(
          services.map((ns, i) =>
            service({ namespace: ns, index: i, families }).chain((svc) =>
              fc
                .option(
                  endpointSlices(svc, { index: i, nodeNames: ["node-1", "node-2", undefined] }),
                  {
                    freq: 5,
                    nil: undefined,
                  },
                )
                .map((slices) => ({ svc, slices })),
            ),
          ),
        ),
        networkPolicies: tupleOf(
          policies.map((ns, i) => networkPolicy({ namespace: ns, index: i })),
        ),
      })
      .map(({ namespaces, pods, withSlices, networkPolicies }) => ({
        namespaces,
        pods,
        services: withSlices.map((w) => w.svc),
        endpointSlices: withSlices.flatMap((w) => w.slices ?? []),
        networkPolicies,
      })),
  );
}

/** The objects as one list, in the order the loader reads them. */
export function clusterObjectList(o: ClusterObjects): object[] {
  return [...o.namespaces, ...o.pods, ...o.services, ...o.endpointSlices, ...o.networkPolicies];
}

export function cluster(c: ClusterConstraints = {}): fc.Arbitrary<Cluster> {
  return clusterObjects(c).map((o) => buildCluster(clusterObjectList(o)));
}
