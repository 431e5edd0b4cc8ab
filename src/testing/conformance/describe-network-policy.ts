/**
 * `describeNetworkPolicyConformance(adapter, options?)`: the NetworkPolicy properties as jest
 * tests at a fixed seed and number of runs (so a failure replays identically), using the
 * consumer's `describe`/`test` globals like describeSctpConformance. The two policy properties
 * are defined for adapters that claim `networkPolicy`; the SCTP-socket one for every adapter.
 */
import type { ConformanceAdapter } from "./adapter.js";
import { expectProperty, jestGlobals } from "./describe-sctp.js";
import {
  applicableProperties,
  NETWORK_POLICY_SUITE,
  type PropertySuiteOptions,
} from "./property-suites.js";

export type { PropertySuiteOptions } from "./property-suites.js";

export function describeNetworkPolicyConformance(
  adapter: ConformanceAdapter,
  options: PropertySuiteOptions = {},
): void {
  const g = jestGlobals();
  const { describe, test } = g;
  describe(`NetworkPolicy conformance: ${adapter.name}`, () => {
    for (const t of applicableProperties(NETWORK_POLICY_SUITE, adapter))
      test(t.name, () => expectProperty(g, t.assert(adapter, options)));
  });
}
