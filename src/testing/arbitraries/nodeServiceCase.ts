/**
 * `nodeServiceCase({families?})`: one Service (ClusterIP or NodePort, 1-2 ports of TCP, UDP or
 * SCTP) with 0-3 endpoints, each ready or not, on this node (`node-a`, 10.244.1.0/24 and
 * fd00:10:244:1::/64) or another (10.244.2.0/24, fd00:10:244:2::/64), a client pod on the node,
 * and a probe from that pod to one of the Service's ports at its ClusterIP of one family.
 * `families` are the cluster's (default `["IPv4"]`): with both, the Service is `SingleStack` in
 * either family or `RequireDualStack` in either order, pods and endpoints have an address in
 * each family (one EndpointSlice per family, as the controller writes them), and the probe goes
 * to one of the Service's families. Built with the builders (API-valid); shrinks to fewer
 * endpoints and towards the first family.
 */
import fc from "fast-check";
import type { Probe } from "../../backends/backend.js";
import type { Cluster } from "../../model/cluster.js";
import { joinHostPort, type IPFamily } from "../../net/index.js";
import { cluster } from "../builders/cluster.js";
import { endpoints } from "../builders/endpoints.js";
import { pod } from "../builders/pod.js";
import { service } from "../builders/service.js";

export interface NodeServiceCase {
  readonly cluster: Cluster;
  readonly probe: Probe;
  /** The probe's family. */
  readonly family: IPFamily;
  /** `ip:port` of the ready endpoints behind the probed port in the probe's family (empty: none ready). */
  readonly readyTargets: readonly string[];
  /** The probed port's NodePort (type NodePort only). */
  readonly nodePort?: number;
}

export interface NodeServiceCaseOptions {
  /** The cluster's IP families, the node's too (default `["IPv4"]`). */
  readonly families?: readonly IPFamily[];
}

const PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;
const CLUSTER_IP: Readonly<Record<IPFamily, string>> = {
  IPv4: "10.96.0.50",
  IPv6: "fd00:10:96::50",
};

/** A pod address on node-a (`local`) or node-b, host part `host`, in `family`. */
function podAddress(family: IPFamily, local: boolean, host: number): string {
  const subnet = local ? 1 : 2;
  return family === "IPv4"
    ? `10.244.${subnet}.${host}`
    : `fd00:10:244:${subnet}::${host.toString(16)}`;
}

/** The Service's families: one of the cluster's, or (dual-stack clusters) both in either order. */
function arbServiceFamilies(families: readonly IPFamily[]): fc.Arbitrary<readonly IPFamily[]> {
  // One family draws nothing (fc.constant), so a single-stack cluster's cases stay those of
  // earlier versions at the same seed.
  if (families.length === 1) return fc.constant([families[0]!]);
  const single = fc.constantFrom(...families).map((f) => [f] as const);
  return fc.oneof(single, fc.constantFrom([...families], [...families].reverse()));
}

export function nodeServiceCase(
  options: NodeServiceCaseOptions = {},
): fc.Arbitrary<NodeServiceCase> {
  const families = options.families ?? ["IPv4"];
  if (families.length === 0) throw new Error("nodeServiceCase: families must not be empty");
  return fc
    .record({
      type: fc.constantFrom("ClusterIP", "NodePort"),
      ports: fc.uniqueArray(
        fc.record({
          protocol: fc.constantFrom(...PROTOCOLS),
          port: fc.integer({ min: 80, max: 82 }),
        }),
        {
          minLength: 1,
          maxLength: 2,
          selector: (p) => `${p.protocol}/${p.port}`,
        },
      ),
      endpoints: fc.array(fc.record({ ready: fc.boolean(), local: fc.boolean() }), {
        maxLength: 3,
      }),
      serviceFamilies: arbServiceFamilies(families),
      which: fc.nat(),
      whichFamily: families.length === 1 ? fc.constant(0) : fc.nat(),
    })
    .map((r) => {
      const ports = r.ports.map((p, k) => ({
        ...p,
        name: `p${k}`,
        targetPort: 8000 + k,
        ...(r.type === "NodePort" ? { nodePort: 30080 + k } : {}),
      }));
      const svcFamilies = r.serviceFamilies;
      const dualStack = svcFamilies.length === 2;
      const clusterIPs = svcFamilies.map((f) => CLUSTER_IP[f]);
      const svc = service("default/svc", {
        type: r.type,
        selector: { app: "svc" },
        // The API server's defaults for an IPv4 single-stack cluster are left to it.
        ...(families.length === 1 && families[0] === "IPv4"
          ? {}
          : {
              clusterIP: clusterIPs[0]!,
              clusterIPs,
              ipFamilies: [...svcFamilies],
              ipFamilyPolicy: dualStack ? "RequireDualStack" : "SingleStack",
            }),
        ports: ports.map((p) => ({
          name: p.name,
          port: p.port,
          protocol: p.protocol,
          targetPort: p.targetPort,
          ...(p.nodePort !== undefined ? { nodePort: p.nodePort } : {}),
        })),
      });
      const eps = r.endpoints.map((e, j) => ({
        local: e.local,
        host: 20 + j,
        node: e.local ? "node-a" : "node-b",
        ready: e.ready,
      }));
      const family = svcFamilies[r.whichFamily % svcFamilies.length]!;
      const chosen = ports[r.which % ports.length]!;
      const probe: Probe = {
        protocol: chosen.protocol.toLowerCase() as Probe["protocol"],
        from: "default/client",
        to: svc.spec?.clusterIPs?.[svcFamilies.indexOf(family)] ?? svc.spec?.clusterIP ?? "",
        port: chosen.port,
      };
      const readyTargets = eps
        .filter((e) => e.ready)
        .map((e) => joinHostPort(podAddress(family, e.local, e.host), chosen.targetPort));
      const slices =
        eps.length === 0
          ? []
          : svcFamilies.map((f) =>
              endpoints("default/svc", {
                ports: ports.map((p) => ({
                  name: p.name,
                  port: p.targetPort,
                  protocol: p.protocol,
                })),
                endpoints: eps.map((e) => ({
                  ip: podAddress(f, e.local, e.host),
                  node: e.node,
                  ready: e.ready,
                  serving: e.ready,
                  terminating: false,
                })),
              }),
            );
      return {
        [fc.toStringMethod]: () =>
          [
            `Service ${r.type} ${svcFamilies.join("/")} ${ports.map((p) => `${p.protocol}/${p.port}→${p.targetPort}`).join(",")}`,
            `endpoints ${eps.map((e) => `${podAddress(family, e.local, e.host)}${e.ready ? "" : "(not ready)"}`).join(", ") || "none"}`,
            `probe ${probe.protocol.toUpperCase()} ${probe.from} → ${probe.to}:${probe.port}`,
          ].join("; "),
        cluster: cluster(
          pod("default/client", {
            ip: families.map((f) => podAddress(f, true, 10)),
            node: "node-a",
            labels: { app: "client" },
          }),
          svc,
          ...slices,
        ),
        probe,
        family,
        readyTargets,
        ...(chosen.nodePort !== undefined ? { nodePort: chosen.nodePort } : {}),
      };
    });
}
