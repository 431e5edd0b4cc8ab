/**
 * `noEndpointServicesReject(adapter)`: proves, over random Services whose probed port has no
 * ready endpoint (none at all, or only unready ones), that a pod's connection to it is
 * rejected (kube-proxy's REJECT, an ICMP error or RST), not dropped to time out and not
 * delivered anywhere. For dataplanes with services.
 */
import fc from "fast-check";
import { describeObservation } from "../../backends/agree.js";
import { joinHostPort } from "../../net/index.js";
import { nodeServiceCase, type NodeServiceCase } from "../arbitraries/nodeServiceCase.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { observeOnPropertyNode, propertyFamilies, type PropertyOptions } from "./trace-probe.js";

export function noEndpointServicesReject(
  adapter: ConformanceAdapter,
  options: PropertyOptions = {},
): fc.IAsyncPropertyWithHooks<[NodeServiceCase]> {
  return fc.asyncProperty(
    nodeServiceCase({ families: propertyFamilies(options) }).filter(
      (c) => c.readyTargets.length === 0,
    ),
    async (c) => {
      const o = await observeOnPropertyNode(adapter, c.cluster, c.probe, options);
      if (o.kind !== "rejected")
        throw new Error(
          `${adapter.name}: ${c.probe.protocol.toUpperCase()} ${c.probe.from} → ${joinHostPort(c.probe.to, c.probe.port)} has no ready endpoint: expected rejected, traced ${describeObservation(o)}`,
        );
      return true;
    },
  );
}
