/**
 * `endpointSlice(svc, constraints)`: an EndpointSlice for `svc` with 0-4 endpoints on this node,
 * another node, or no node, with every combination of ready/serving/terminating, and one slice
 * port per service port (matched by name and protocol, port = targetPort).
 * `endpointSlices(svc, constraints)`: the slices the EndpointSlice controller keeps for `svc`,
 * one per family of its `ipFamilies` (IPv4 addresses `10.18x.i.h`, IPv6 `fd00:10:18x:i::h`),
 * over the same endpoints, as for dual-stack pods.
 */
import fc from "fast-check";
import type { EndpointSlice, Service } from "../../model/kinds.js";
import { formatIP, parseIP } from "../../net/index.js";

type Family = "IPv4" | "IPv6";

export interface EndpointSliceConstraints {
  /** Distinguishes endpoint addresses between services; default 0. */
  readonly index?: number;
  /** Node names endpoints may sit on (undefined = no nodeName); default test-node, node2. */
  readonly nodeNames?: readonly (string | undefined)[];
  readonly maxEndpoints?: number;
  /** The slice's addressType (endpointSlice only); default IPv4. */
  readonly addressType?: Family;
}

interface DrawnEndpoint {
  readonly host: number;
  readonly nodeName: string | undefined;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
}

function endpointsArb(c: EndpointSliceConstraints): fc.Arbitrary<DrawnEndpoint[]> {
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
  return fc.uniqueArray(endpoint, { maxLength: c.maxEndpoints ?? 4, selector: (e) => e.host });
}

/** Endpoint `host` of service `index` in a family. */
export function endpointAddress(family: Family, index: number, host: number): string {
  const third = 180 + ((index >> 8) & 63);
  if (family === "IPv4") return `10.${third}.${index & 255}.${host}`;
  const a = parseIP(
    `fd00:10:${third.toString(16)}:${(index & 255).toString(16)}::${host.toString(16)}`,
    "lenient",
  );
  if (a === undefined) throw new Error("endpointAddress: invalid IPv6 address");
  return formatIP(a);
}

function sliceOf(
  svc: Service,
  family: Family,
  eps: readonly DrawnEndpoint[],
  index: number,
): EndpointSlice {
  const name = svc.metadata?.name ?? "";
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      namespace: svc.metadata?.namespace ?? "default",
      // IPv4 keeps the name it always had; the IPv6 slice of the same Service needs another.
      name: family === "IPv4" ? `${name}-1` : `${name}-ipv6`,
      labels: { "kubernetes.io/service-name": name },
    },
    addressType: family,
    endpoints: eps.map((e) => ({
      addresses: [endpointAddress(family, index, e.host)],
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
  };
}

export function endpointSlice(
  svc: Service,
  c: EndpointSliceConstraints = {},
): fc.Arbitrary<EndpointSlice> {
  const index = c.index ?? 0;
  return endpointsArb(c).map((eps) => sliceOf(svc, c.addressType ?? "IPv4", eps, index));
}

export function endpointSlices(
  svc: Service,
  c: Omit<EndpointSliceConstraints, "addressType"> = {},
): fc.Arbitrary<EndpointSlice[]> {
  const index = c.index ?? 0;
  const families = (svc.spec?.ipFamilies ?? ["IPv4"]).filter(
    (f): f is Family => f === "IPv4" || f === "IPv6",
  );
  return endpointsArb(c).map((eps) => families.map((f) => sliceOf(svc, f, eps, index)));
}
