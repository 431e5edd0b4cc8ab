/**
 * `nodePortsReachable(adapter)`: proves, over random NodePort Services (TCP, UDP and SCTP
 * ports) with at least one ready endpoint here or on another node, that an external client's
 * connection to the node's IP at the NodePort is delivered to one of the ready endpoints at the
 * port's targetPort (externalTrafficPolicy Cluster). For dataplanes with services.
 */
import fc from "fast-check";
import { describeObservation } from "../../backends/agree.js";
import { joinHostPort } from "../../net/index.js";
import { nodeServiceCase, type NodeServiceCase } from "../arbitraries/nodeServiceCase.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { propertyNodeIP } from "../conformance/fixture.js";
import { observeOnPropertyNode, propertyFamilies, type PropertyOptions } from "./trace-probe.js";

export function nodePortsReachable(
  adapter: ConformanceAdapter,
  options: PropertyOptions = {},
): fc.IAsyncPropertyWithHooks<[NodeServiceCase]> {
  return fc.asyncProperty(
    nodeServiceCase({ families: propertyFamilies(options) }).filter(
      (c) => c.nodePort !== undefined && c.readyTargets.length > 0,
    ),
    async (c) => {
      const probe = {
        protocol: c.probe.protocol,
        from: "external",
        to: propertyNodeIP(c.family),
        port: c.nodePort ?? 0,
      };
      const o = await observeOnPropertyNode(adapter, c.cluster, probe, options);
      if (o.kind !== "delivered" || !c.readyTargets.includes(o.to))
        throw new Error(
          `${adapter.name}: ${probe.protocol.toUpperCase()} external → ${joinHostPort(probe.to, probe.port)} (NodePort): expected delivery to one of ${c.readyTargets.join(", ")}, traced ${describeObservation(o)}`,
        );
      return true;
    },
  );
}
