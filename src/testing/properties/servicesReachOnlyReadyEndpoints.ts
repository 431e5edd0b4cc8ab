/**
 * `servicesReachOnlyReadyEndpoints(adapter)`: proves, over random Services (TCP, UDP and SCTP
 * ports, ready and unready endpoints here and on other nodes), that a pod's connection to a
 * Service port that has ready endpoints is delivered to one of them (at the port's
 * targetPort), never to an unready one — kube-proxy's service semantics. Probes to ports
 * without ready endpoints are left to noEndpointServicesReject. For dataplanes with services.
 */
import fc from "fast-check";
import { describeObservation } from "../../backends/agree.js";
import { joinHostPort } from "../../net/index.js";
import { nodeServiceCase, type NodeServiceCase } from "../arbitraries/nodeServiceCase.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { observeOnPropertyNode, propertyFamilies, type PropertyOptions } from "./trace-probe.js";

export function servicesReachOnlyReadyEndpoints(
  adapter: ConformanceAdapter,
  options: PropertyOptions = {},
): fc.IAsyncPropertyWithHooks<[NodeServiceCase]> {
  return fc.asyncProperty(
    nodeServiceCase({ families: propertyFamilies(options) }).filter(
      (c) => c.readyTargets.length > 0,
    ),
    async (c) => {
      const o = await observeOnPropertyNode(adapter, c.cluster, c.probe, options);
      if (o.kind !== "delivered" || !c.readyTargets.includes(o.to))
        throw new Error(
          `${adapter.name}: ${c.probe.protocol.toUpperCase()} ${c.probe.from} → ${joinHostPort(c.probe.to, c.probe.port)}: expected delivery to one of ${c.readyTargets.join(", ")}, traced ${describeObservation(o)}`,
        );
      return true;
    },
  );
}
