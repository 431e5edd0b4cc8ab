/**
 * `endpoints("ns/service", {ports, endpoints})`: the Service's EndpointSlice
 * (discovery.k8s.io/v1, labelled `kubernetes.io/service-name`), as the EndpointSlice controller
 * writes it. Each endpoint: `ip`, `node`, and `ready` (default true; serving follows ready,
 * terminating defaults to false). The address type is that of the first endpoint (IPv4 when none).
 */
import type { EndpointSlice } from "../../model/kinds.js";
import { defined, splitName } from "./names.js";

export interface EndpointPortOptions {
  readonly port: number;
  /** Default TCP. */
  readonly protocol?: "TCP" | "UDP" | "SCTP";
  /** The Service port's name (required when the Service has several ports). */
  readonly name?: string;
}

export interface EndpointOptions {
  readonly ip: string;
  readonly node?: string;
  readonly ready?: boolean;
  readonly serving?: boolean;
  readonly terminating?: boolean;
  /** `targetRef` to this pod (`"ns/name"` or `"name"`). */
  readonly pod?: string;
  readonly zone?: string;
}

export interface EndpointsOptions {
  readonly ports: readonly EndpointPortOptions[];
  readonly endpoints: readonly EndpointOptions[];
  /** Default `<service>-v4` or `<service>-v6` (one slice per family; name it for a second). */
  readonly sliceName?: string;
}

export function endpoints(ref: string, options: EndpointsOptions): EndpointSlice {
  const { namespace, name } = splitName(ref);
  const first = options.endpoints[0]?.ip ?? "";
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: options.sliceName ?? `${name}-${first.includes(":") ? "v6" : "v4"}`,
      namespace,
      labels: { "kubernetes.io/service-name": name },
    },
    addressType: first.includes(":") ? "IPv6" : "IPv4",
    ports: options.ports.map((p) =>
      defined({ name: p.name ?? "", port: p.port, protocol: p.protocol ?? "TCP" }),
    ),
    endpoints: options.endpoints.map((e) => {
      const ready = e.ready ?? true;
      const target =
        e.pod === undefined
          ? undefined
          : splitName(e.pod.includes("/") ? e.pod : `${namespace}/${e.pod}`);
      return defined({
        addresses: [e.ip],
        conditions: { ready, serving: e.serving ?? ready, terminating: e.terminating ?? false },
        nodeName: e.node,
        zone: e.zone,
        targetRef:
          target === undefined
            ? undefined
            : { kind: "Pod", namespace: target.namespace, name: target.name },
      });
    }),
  };
}
