/**
 * `noSctpSocketsOpened(adapter)`: proves, over random pods with host ports (SCTP among TCP and
 * UDP, colliding ports, hostIPs), that the node state the adapter computes opens no SCTP
 * socket: opening one loads sctp.ko, which the SCTP test plan's side condition forbids (kubelet
 * reserves TCP/UDP host ports with sockets and never SCTP ones). It checks the adapter's
 * reported `sockets`; an adapter that reports none passes trivially.
 */
import fc from "fast-check";
import { cluster } from "../builders/cluster.js";
import { hostPortPod } from "../arbitraries/hostPortPod.js";
import type { Pod } from "../../model/kinds.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { sctpNode } from "../conformance/fixture.js";
import { adapterInput } from "../conformance/scenario.js";

export function noSctpSocketsOpened(
  adapter: ConformanceAdapter,
): fc.IAsyncPropertyWithHooks<[Pod[]]> {
  const pods = fc
    .integer({ min: 1, max: 3 })
    .chain((n) =>
      fc.tuple(
        ...Array.from({ length: n }, (_, index) => hostPortPod({ index, nodeName: "node-a" })),
      ),
    );
  return fc.asyncProperty(pods, async (ps) => {
    const state = await adapter.nodeState(adapterInput(cluster(...ps), sctpNode()));
    const sctp = (state.sockets ?? []).filter((s) => s.protocol === "sctp");
    if (sctp.length > 0)
      throw new Error(
        `${adapter.name} opens SCTP sockets on ports ${sctp.map((s) => s.port).join(", ")}`,
      );
    return true;
  });
}
