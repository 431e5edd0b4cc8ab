/**
 * `endpointSlice(svc, constraints)`: an EndpointSlice for `svc` with 0-4 endpoints on this node,
 * another node, or no node, with every combination of ready/serving/terminating, and one slice
 * port per service port (matched by name and protocol, port = targetPort).
 */
import fc from "fast-check";
import type { EndpointSlice, Service } from "../../model/kinds.js";

export interface EndpointSliceConstraints {
  /** Distinguishes endpoint addresses between services; default 0. */
  readonly index?: number;
  /** Node names endpoints may sit on (undefined = no nodeName); default test-node, node2. */
  readonly nodeNames?: readonly (string | undefined)[];
  readonly maxEndpoints?: number;
}

export function endpointSlice(
  svc: Service,
  c: EndpointSliceConstraints = {},
): fc.Arbitrary<EndpointSlice> {
  const index = c.index ?? 0;
  const nodeNames = c.nodeNames ?? ["test-node", "node2", undefined];
  const endpoint = fc.record({
    host: fc.integer({ min: 1, max: 250 }),
    nodeName: fc.constantFrom(...nodeNames),
    ready: fc.oneof(
      { weight: 4, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    serving: fc.boolean(),
    terminating: fc.boolean(),
  });
  return fc
    .uniqueArray(endpoint, { maxLength: c.maxEndpoints ?? 4, selector: (e) => e.host })
    .map((eps): EndpointSlice => ({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        namespace: svc.metadata?.namespace ?? "default",
        name: `${svc.metadata?.name ?? ""}-1`,
        labels: { "kubernetes.io/service-name": svc.metadata?.name ?? "" },
      },
      addressType: "IPv4",
      endpoints: eps.map((e) => ({
        addresses: [`10.${180 + ((index >> 8) & 63)}.${index & 255}.${e.host}`],
        // A ready endpoint is always serving and not terminating (EndpointSlice controller).
        conditions: e.ready
          ? { ready: true, serving: true, terminating: false }
          : { ready: false, serving: e.serving, terminating: e.terminating },
        ...(e.nodeName === undefined ? {} : { nodeName: e.nodeName }),
      })),
      ports: (svc.spec?.ports ?? []).map((p) => ({
        name: p.name ?? "",
        protocol: p.protocol ?? "TCP",
        port: typeof p.targetPort === "number" ? p.targetPort : p.port,
      })),
    }));
}
