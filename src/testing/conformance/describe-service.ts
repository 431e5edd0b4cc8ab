/**
 * `describeServiceConformance(adapter, options?)`: the Service properties as jest tests at a
 * fixed seed and number of runs, using the consumer's `describe`/`test` globals.
 */
import fc from "fast-check";
import { nodePortsReachable } from "../properties/nodePortsReachable.js";
import { noEndpointServicesReject } from "../properties/noEndpointServicesReject.js";
import { servicesReachOnlyReadyEndpoints } from "../properties/servicesReachOnlyReadyEndpoints.js";
import type { ConformanceAdapter } from "./adapter.js";
import type { PropertySuiteOptions } from "./describe-network-policy.js";
import { expectProperty, jestGlobals } from "./describe-sctp.js";

export function describeServiceConformance(
  adapter: ConformanceAdapter,
  options: PropertySuiteOptions = {},
): void {
  const g = jestGlobals();
  const { describe, test } = g;
  const params = { numRuns: options.numRuns ?? 20, seed: options.seed ?? 13 };
  const backend = options.backend !== undefined ? { backend: options.backend } : {};
  describe(`Service conformance: ${adapter.name}`, () => {
    test("a Service port with ready endpoints reaches only them", () =>
      expectProperty(g, fc.assert(servicesReachOnlyReadyEndpoints(adapter, backend), params)));
    test("a NodePort reaches the Service's ready endpoints from outside", () =>
      expectProperty(g, fc.assert(nodePortsReachable(adapter, backend), params)));
    test("a Service port without ready endpoints rejects", () =>
      expectProperty(g, fc.assert(noEndpointServicesReject(adapter, backend), params)));
  });
}
