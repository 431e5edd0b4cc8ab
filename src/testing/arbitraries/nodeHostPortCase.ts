/**
 * `nodeHostPortCase()`: 1-3 pods on `node-a` (10.244.1.0/24), each with one container port of
 * TCP, UDP or SCTP published on its own hostPort (8080 + index, so no two collide), and a probe
 * from the external client to the node's IP at one pod's hostPort with that port's protocol.
 * Built with the builders (API-valid); shrinks to one pod.
 */
import fc from "fast-check";
import type { Probe } from "../../backends/backend.js";
import type { Cluster } from "../../model/cluster.js";
import { cluster } from "../builders/cluster.js";
import { pod } from "../builders/pod.js";
import { NODE_IP } from "../conformance/fixture.js";

export interface NodeHostPortCase {
  readonly cluster: Cluster;
  readonly probe: Probe;
  /** `podIP:containerPort` the probe must reach. */
  readonly target: string;
}

export function nodeHostPortCase(): fc.Arbitrary<NodeHostPortCase> {
  return fc
    .record({
      pods: fc.array(
        fc.record({
          protocol: fc.constantFrom<"TCP" | "UDP" | "SCTP">("TCP", "UDP", "SCTP"),
          containerPort: fc.integer({ min: 80, max: 90 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      which: fc.nat(),
    })
    .map((r) => {
      const pods = r.pods.map((p, i) => ({
        ...p,
        name: `default/hp${i}`,
        ip: `10.244.1.${30 + i}`,
        hostPort: 8080 + i,
      }));
      const chosen = pods[r.which % pods.length]!;
      const probe: Probe = {
        protocol: chosen.protocol.toLowerCase() as Probe["protocol"],
        from: "external",
        to: NODE_IP,
        port: chosen.hostPort,
      };
      return {
        [fc.toStringMethod]: () =>
          [
            ...pods.map(
              (p) => `pod ${p.name} ${p.ip} ${p.protocol} ${p.hostPort}→${p.containerPort}`,
            ),
            `probe ${probe.protocol.toUpperCase()} external → ${NODE_IP}:${probe.port}`,
          ].join("; "),
        cluster: cluster(
          ...pods.map((p) =>
            pod(p.name, {
              ip: p.ip,
              node: "node-a",
              ports: [
                { containerPort: p.containerPort, protocol: p.protocol, hostPort: p.hostPort },
              ],
            }),
          ),
        ),
        probe,
        target: `${chosen.ip}:${chosen.containerPort}`,
      };
    });
}
