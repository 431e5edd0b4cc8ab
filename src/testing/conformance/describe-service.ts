/**
 * `describeServiceConformance(adapter, options?)`: the Service properties as jest tests at a
 * fixed seed and number of runs, using the consumer's `describe`/`test` globals: the three
 * Service properties for adapters that claim `services`, the hostPort one for `hostPorts`.
 */
import type { ConformanceAdapter } from "./adapter.js";
import { expectProperty, jestGlobals } from "./describe-sctp.js";
import {
  applicableProperties,
  SERVICE_SUITE,
  type PropertySuiteOptions,
} from "./property-suites.js";

export function describeServiceConformance(
  adapter: ConformanceAdapter,
  options: PropertySuiteOptions = {},
): void {
  const g = jestGlobals();
  const { describe, test } = g;
  describe(`Service conformance: ${adapter.name}`, () => {
    for (const t of applicableProperties(SERVICE_SUITE, adapter))
      test(t.name, () => expectProperty(g, t.assert(adapter, options)));
  });
}
