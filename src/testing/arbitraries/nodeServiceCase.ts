/**
 * `nodeServiceCase()`: one Service (ClusterIP or NodePort, 1-2 ports of TCP, UDP or SCTP)
 * with 0-3 endpoints, each ready or not, on this node (`node-a`, 10.244.1.0/24) or another
 * (10.244.2.0/24), a client pod on the node, and a probe from that pod to one of the Service's
 * ports at its ClusterIP. Built with the builders (API-valid); shrinks to fewer endpoints.
 */
import fc from "fast-check";
import type { Probe } from "../../backends/backend.js";
import type { Cluster } from "../../model/cluster.js";
import { cluster } from "../builders/cluster.js";
import { endpoints } from "../builders/endpoints.js";
import { pod } from "../builders/pod.js";
import { service } from "../builders/service.js";

export interface NodeServiceCase {
  readonly cluster: Cluster;
  readonly probe: Probe;
  /** `ip:port` of the ready endpoints behind the probed port (empty: none ready). */
  readonly readyTargets: readonly string[];
  /** The probed port's NodePort (type NodePort only). */
  readonly nodePort?: number;
}

const PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;

export function nodeServiceCase(): fc.Arbitrary<NodeServiceCase> {
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
      which: fc.nat(),
    })
    .map((r) => {
      const ports = r.ports.map((p, k) => ({
        ...p,
        name: `p${k}`,
        targetPort: 8000 + k,
        ...(r.type === "NodePort" ? { nodePort: 30080 + k } : {}),
      }));
      const svc = service("default/svc", {
        type: r.type,
        selector: { app: "svc" },
        ports: ports.map((p) => ({
          name: p.name,
          port: p.port,
          protocol: p.protocol,
          targetPort: p.targetPort,
          ...(p.nodePort !== undefined ? { nodePort: p.nodePort } : {}),
        })),
      });
      const eps = r.endpoints.map((e, j) => ({
        ip: e.local ? `10.244.1.${20 + j}` : `10.244.2.${20 + j}`,
        node: e.local ? "node-a" : "node-b",
        ready: e.ready,
        serving: e.ready,
        terminating: false,
      }));
      const chosen = ports[r.which % ports.length]!;
      const probe: Probe = {
        protocol: chosen.protocol.toLowerCase() as Probe["protocol"],
        from: "default/client",
        to: svc.spec?.clusterIP ?? "",
        port: chosen.port,
      };
      const readyTargets = eps.filter((e) => e.ready).map((e) => `${e.ip}:${chosen.targetPort}`);
      return {
        [fc.toStringMethod]: () =>
          [
            `Service ${r.type} ${ports.map((p) => `${p.protocol}/${p.port}→${p.targetPort}`).join(",")}`,
            `endpoints ${eps.map((e) => `${e.ip}${e.ready ? "" : "(not ready)"}`).join(", ") || "none"}`,
            `probe ${probe.protocol.toUpperCase()} ${probe.from} → ${probe.to}:${probe.port}`,
          ].join("; "),
        cluster: cluster(
          pod("default/client", { ip: "10.244.1.10", node: "node-a", labels: { app: "client" } }),
          svc,
          ...(eps.length > 0
            ? [
                endpoints("default/svc", {
                  ports: ports.map((p) => ({
                    name: p.name,
                    port: p.targetPort,
                    protocol: p.protocol,
                  })),
                  endpoints: eps,
                }),
              ]
            : []),
        ),
        probe,
        readyTargets,
        ...(chosen.nodePort !== undefined ? { nodePort: chosen.nodePort } : {}),
      };
    });
}
