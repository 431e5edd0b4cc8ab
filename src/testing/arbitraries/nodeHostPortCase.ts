/**
 * `nodeHostPortCase({families?})`: 1-3 pods on `node-a` (10.244.1.0/24, and fd00:10:244:1::/64
 * when the cluster has IPv6), each with one container port of TCP, UDP or SCTP published on its
 * own hostPort (8080 + index, so no two collide), and a probe from the external client to the
 * node's address at one pod's hostPort with that port's protocol, in one of `families` (the
 * cluster's, default `["IPv4"]`; pods have an address in each). Built with the builders
 * (API-valid); shrinks to one pod and towards the first family.
 */
import fc from "fast-check";
import type { Probe } from "../../backends/backend.js";
import type { Cluster } from "../../model/cluster.js";
import { joinHostPort, type IPFamily } from "../../net/index.js";
import { cluster } from "../builders/cluster.js";
import { pod } from "../builders/pod.js";
import { propertyNodeIP } from "../conformance/fixture.js";

export interface NodeHostPortCase {
  readonly cluster: Cluster;
  readonly probe: Probe;
  /** The probe's family. */
  readonly family: IPFamily;
  /** `podIP:containerPort` the probe must reach. */
  readonly target: string;
}

export interface NodeHostPortCaseOptions {
  /** The cluster's IP families, the node's too (default `["IPv4"]`). */
  readonly families?: readonly IPFamily[];
}

function podAddress(family: IPFamily, i: number): string {
  return family === "IPv4" ? `10.244.1.${30 + i}` : `fd00:10:244:1::${(0x30 + i).toString(16)}`;
}

export function nodeHostPortCase(
  options: NodeHostPortCaseOptions = {},
): fc.Arbitrary<NodeHostPortCase> {
  const families = options.families ?? ["IPv4"];
  if (families.length === 0) throw new Error("nodeHostPortCase: families must not be empty");
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
      // One family draws nothing, so an IPv4 cluster's cases stay those of earlier versions.
      family: families.length === 1 ? fc.constant(families[0]!) : fc.constantFrom(...families),
    })
    .map((r) => {
      const pods = r.pods.map((p, i) => ({
        ...p,
        name: `default/hp${i}`,
        ips: families.map((f) => podAddress(f, i)),
        hostPort: 8080 + i,
        index: i,
      }));
      const chosen = pods[r.which % pods.length]!;
      const nodeIP = propertyNodeIP(r.family);
      const probe: Probe = {
        protocol: chosen.protocol.toLowerCase() as Probe["protocol"],
        from: "external",
        to: nodeIP,
        port: chosen.hostPort,
      };
      return {
        [fc.toStringMethod]: () =>
          [
            ...pods.map(
              (p) =>
                `pod ${p.name} ${p.ips.join(",")} ${p.protocol} ${p.hostPort}→${p.containerPort}`,
            ),
            `probe ${probe.protocol.toUpperCase()} external → ${joinHostPort(nodeIP, probe.port)}`,
          ].join("; "),
        cluster: cluster(
          ...pods.map((p) =>
            pod(p.name, {
              ip: p.ips,
              node: "node-a",
              ports: [
                { containerPort: p.containerPort, protocol: p.protocol, hostPort: p.hostPort },
              ],
            }),
          ),
        ),
        probe,
        family: r.family,
        target: joinHostPort(podAddress(r.family, chosen.index), chosen.containerPort),
      };
    });
}
