/**
 * `kubeCluster(constraints)`: a Cluster of services, each with at most one EndpointSlice, with
 * unique names and addresses (service i: svc<i>, ClusterIP 172.30.x.y, endpoints 10.18x.i.h).
 */
import fc from "fast-check";
import { makeCluster, type Cluster } from "../../model/cluster.js";
import type { EndpointSlice, Service } from "../../model/kinds.js";
import { endpointSlice, type EndpointSliceConstraints } from "./endpointSlice.js";
import { service, type ServiceConstraints } from "./service.js";

export interface KubeClusterConstraints {
  readonly minServices?: number;
  readonly maxServices?: number;
  readonly service?: Omit<ServiceConstraints, "index">;
  readonly endpointSlice?: Omit<EndpointSliceConstraints, "index">;
}

export interface GeneratedCluster {
  readonly cluster: Cluster;
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
}

export function kubeCluster(c: KubeClusterConstraints = {}): fc.Arbitrary<GeneratedCluster> {
  return fc
    .integer({ min: c.minServices ?? 0, max: c.maxServices ?? 4 })
    .chain((n) =>
      fc.tuple(
        ...Array.from({ length: n }, (_, i) =>
          service({ ...c.service, index: i }).chain((svc) =>
            fc.tuple(
              fc.constant(svc),
              fc.option(endpointSlice(svc, { ...c.endpointSlice, index: i }), { freq: 5 }),
            ),
          ),
        ),
      ),
    )
    .map((pairs) => {
      const services = pairs.map(([s]) => s);
      const endpointSlices = pairs.flatMap(([, e]) => (e === null ? [] : [e]));
      return { cluster: makeCluster({ services, endpointSlices }), services, endpointSlices };
    });
}
