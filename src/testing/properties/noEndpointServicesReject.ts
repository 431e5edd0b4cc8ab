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
import { propertyNode } from "../conformance/fixture.js";
import { observeProbe, type PropertyOptions } from "./trace-probe.js";

export function noEndpointServicesReject(
  adapter: ConformanceAdapter,
  options: PropertyOptions = {},
): fc.IAsyncPropertyWithHooks<[NodeServiceCase]> {
  return fc.asyncProperty(
    nodeServiceCase({ families: options.families ?? ["IPv4"] }).filter(
      (c) => c.readyTargets.length === 0,
    ),
    async (c) => {
      const o = await observeProbe(
        adapter,
        c.cluster,
        propertyNode(options.families ?? ["IPv4"]),
        c.probe,
        options,
      );
      if (o.kind !== "rejected")
        throw new Error(
          `${adapter.name}: ${c.probe.protocol.toUpperCase()} ${c.probe.from} → ${joinHostPort(c.probe.to, c.probe.port)} has no ready endpoint: expected rejected, traced ${describeObservation(o)}`,
        );
      return true;
    },
  );
}
