/**
 * Endpoints (v1) → EndpointSlices, as the EndpointSlice mirroring controller
 * (pkg/controller/endpointslicemirroring) does: only Endpoints whose Service exists and has no
 * selector, and that are not labelled `endpointslice.kubernetes.io/skip-mirror: "true"`, are
 * mirrored. Addresses are grouped by (address type, ports) across subsets; each group becomes a
 * slice labelled with the service name and the mirroring controller as manager. Addresses are
 * re-printed canonically; unparseable ones are dropped. Endpoints get only a `ready` condition
 * (true for `addresses`, false for `notReadyAddresses`). The controller names slices
 * `<name>-<random>`; here the suffix is the group's index so that output is deterministic.
 */
import { formatIP, parseIP } from "../net/index.js";
import type { Endpoint, EndpointSlice, Endpoints, Service } from "./kinds.js";
import { SERVICE_NAME_LABEL } from "./cluster-index.js";

export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const MIRRORING_CONTROLLER = "endpointslicemirroring-controller.k8s.io";
export const SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror";
const LEADER_ELECTION_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";
const DROPPED_ANNOTATIONS = new Set([
  "endpoints.kubernetes.io/last-change-trigger-time",
  "kubectl.kubernetes.io/last-applied-configuration",
]);

export type MirrorOutcome =
  | { readonly kind: "mirrored"; readonly slices: readonly EndpointSlice[] }
  | { readonly kind: "skipped"; readonly reason: string };

export function mirrorEndpoints(ep: Endpoints, service: Service | undefined): MirrorOutcome {
  const name = ep.metadata?.name ?? "";
  const namespace = ep.metadata?.namespace ?? "default";
  if (ep.metadata?.labels?.[SKIP_MIRROR_LABEL] === "true")
    return { kind: "skipped", reason: `labelled ${SKIP_MIRROR_LABEL}: "true"` };
  if (ep.metadata?.annotations?.[LEADER_ELECTION_ANNOTATION] !== undefined)
    return { kind: "skipped", reason: "a leader-election record, not service endpoints" };
  if (service === undefined) return { kind: "skipped", reason: `no Service ${namespace}/${name}` };
  if (service.spec?.selector != null)
    return {
      kind: "skipped",
      reason: `Service ${namespace}/${name} has a selector (the EndpointSlice controller manages its slices)`,
    };

  const groups = new Map<
    string,
    { addressType: "IPv4" | "IPv6"; ports: string; endpoints: Map<string, Endpoint> }
  >();
  for (const subset of ep.subsets ?? []) {
    const ports = (subset.ports ?? []).map((p) => ({
      name: p.name ?? "",
      port: p.port,
      protocol: p.protocol ?? "TCP",
      ...(p.appProtocol !== undefined ? { appProtocol: p.appProtocol } : {}),
    }));
    const portsKey = JSON.stringify(ports);
    const add = (addresses: typeof subset.addresses, ready: boolean): void => {
      for (const a of addresses ?? []) {
        const ip = parseIP(a.ip ?? "", "lenient");
        if (ip === undefined) continue;
        const endpoint: Endpoint = {
          addresses: [formatIP(ip)],
          conditions: { ready },
          ...(a.targetRef !== undefined ? { targetRef: a.targetRef } : {}),
          ...(a.nodeName !== undefined ? { nodeName: a.nodeName } : {}),
          ...(a.hostname !== undefined && a.hostname !== "" ? { hostname: a.hostname } : {}),
        };
        const key = `${ip.family}|${portsKey}`;
        let g = groups.get(key);
        if (g === undefined) {
          g = { addressType: ip.family, ports: portsKey, endpoints: new Map() };
          groups.set(key, g);
        }
        const epKey = JSON.stringify(endpoint);
        if (!g.endpoints.has(epKey)) g.endpoints.set(epKey, endpoint);
      }
    };
    add(subset.addresses, true);
    add(subset.notReadyAddresses, false);
  }

  const labels: Record<string, string> = { ...(ep.metadata?.labels ?? {}) };
  labels[SERVICE_NAME_LABEL] = name;
  labels[MANAGED_BY_LABEL] = MIRRORING_CONTROLLER;
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(ep.metadata?.annotations ?? {}))
    if (!DROPPED_ANNOTATIONS.has(k)) annotations[k] = v;

  const slices: EndpointSlice[] = [];
  let i = 0;
  for (const g of groups.values()) {
    slices.push({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: `${name}-mirrored-${i++}`,
        namespace,
        labels: { ...labels },
        annotations: { ...annotations },
        ownerReferences: [
          {
            apiVersion: "v1",
            kind: "Endpoints",
            name,
            uid: "",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      addressType: g.addressType,
      endpoints: [...g.endpoints.values()],
      ports: JSON.parse(g.ports) as NonNullable<EndpointSlice["ports"]>,
    });
  }
  return { kind: "mirrored", slices };
}
