/**
 * `hostPortsReachPods(adapter)`: proves, over random pods publishing TCP, UDP or SCTP container
 * ports on distinct hostPorts, that an external client's connection to the node's IP at a
 * hostPort with that port's protocol is delivered to the pod at its containerPort. For
 * dataplanes with hostPorts.
 */
import fc from "fast-check";
import { describeObservation } from "../../backends/agree.js";
import { joinHostPort } from "../../net/index.js";
import { nodeHostPortCase, type NodeHostPortCase } from "../arbitraries/nodeHostPortCase.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { observeOnPropertyNode, propertyFamilies, type PropertyOptions } from "./trace-probe.js";

export function hostPortsReachPods(
  adapter: ConformanceAdapter,
  options: PropertyOptions = {},
): fc.IAsyncPropertyWithHooks<[NodeHostPortCase]> {
  return fc.asyncProperty(nodeHostPortCase({ families: propertyFamilies(options) }), async (c) => {
    const o = await observeOnPropertyNode(adapter, c.cluster, c.probe, options);
    if (o.kind !== "delivered" || o.to !== c.target)
      throw new Error(
        `${adapter.name}: ${c.probe.protocol.toUpperCase()} external → ${joinHostPort(c.probe.to, c.probe.port)} (hostPort): expected delivery to ${c.target}, traced ${describeObservation(o)}`,
      );
    return true;
  });
}
