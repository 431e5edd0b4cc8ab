/**
 * `service("ns/name", {...})`: a v1 Service. Options are the ServiceSpec fields (the API server
 * defaults the rest: `type: ClusterIP`, port `protocol: TCP`, `targetPort` = `port`, ...).
 * `clusterIP` left out is allocated as the API server would from its service CIDR: here a fixed
 * address in 10.96.0.0/16 (fd00:10:96::/112 when `ipFamilies` starts with IPv6) derived from the
 * name, so a test's addresses do not change between runs; `clusterIP: "None"` is headless.
 */
import type { Service, ServiceSpec } from "../../model/kinds.js";
import { defined, splitName } from "./names.js";

export interface ServicePortOptions {
  readonly port: number;
  readonly protocol?: "TCP" | "UDP" | "SCTP";
  readonly name?: string;
  readonly targetPort?: number | string;
  readonly nodePort?: number;
}

export type ServiceOptions = Omit<ServiceSpec, "ports" | "selector"> & {
  readonly ports: readonly ServicePortOptions[];
  readonly selector?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
};

/** FNV-1a, for a stable allocated address. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function allocateClusterIP(key: string, ipv6: boolean): string {
  const h = hash(key) % 65000;
  const n = h + 10; // skip the low addresses (10.96.0.1 is the kubernetes Service)
  return ipv6 ? `fd00:10:96::${n.toString(16)}` : `10.96.${n >> 8}.${n & 255}`;
}

export function service(ref: string, options: ServiceOptions): Service {
  const { namespace, name } = splitName(ref);
  const { ports, selector, labels, ...spec } = options;
  const clusterIP =
    spec.clusterIP ??
    (spec.type === "ExternalName" || spec.clusterIPs !== undefined
      ? undefined
      : allocateClusterIP(`${namespace}/${name}`, spec.ipFamilies?.[0] === "IPv6"));
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: defined({ name, namespace, labels: labels ? { ...labels } : undefined }),
    spec: defined({
      ...spec,
      clusterIP,
      selector: selector ? { ...selector } : undefined,
      ports: ports.map((p) => defined({ ...p })),
    }),
  };
}
