/**
 * Every conformance suite against an adapter, outside any test framework (what the
 * `conformance` command runs): the SCTP test plan, the Service suite and the NetworkPolicy
 * suite, each test with its failures, in that order.
 */
import { assertNever } from "../../util/assert-never.js";
import type { ConformanceAdapter } from "./adapter.js";
import {
  applicableProperties,
  NETWORK_POLICY_SUITE,
  runProperty,
  SERVICE_SUITE,
  type PropertySuiteOptions,
  type PropertyTest,
} from "./property-suites.js";
import { runSctpPlan } from "./run-plan.js";

export type SuiteName = "sctp" | "service" | "policy";
export const SUITE_NAMES: readonly SuiteName[] = ["sctp", "service", "policy"];

/** The title each suite's tests are grouped under (the jest describe block's, without the adapter). */
export const SUITE_TITLES: Readonly<Record<SuiteName, string>> = {
  sctp: "SCTP conformance",
  service: "Service conformance",
  policy: "NetworkPolicy conformance",
};

export interface SuiteResult {
  readonly suite: SuiteName;
  /** `[Feature:SCTP]` / `[Feature:SCTPConnectivity]` for the plan; the suite's title otherwise. */
  readonly group: string;
  readonly name: string;
  /** Empty when the test passed. */
  readonly failures: readonly string[];
  /** What the test could not check here and why, or what it observed. */
  readonly notes?: readonly string[];
}

export interface RunSuitesOptions extends PropertySuiteOptions {
  /** Default: all three. */
  readonly suites?: readonly SuiteName[];
}

async function runProperties(
  suite: "service" | "policy",
  tests: readonly PropertyTest[],
  adapter: ConformanceAdapter,
  options: PropertySuiteOptions,
): Promise<SuiteResult[]> {
  const out: SuiteResult[] = [];
  for (const t of applicableProperties(tests, adapter))
    out.push({
      suite,
      group: SUITE_TITLES[suite],
      name: t.name,
      failures: await runProperty(t, adapter, options),
    });
  return out;
}

export async function runConformanceSuites(
  adapter: ConformanceAdapter,
  options: RunSuitesOptions = {},
): Promise<SuiteResult[]> {
  const wanted = new Set(options.suites ?? SUITE_NAMES);
  const out: SuiteResult[] = [];
  for (const suite of SUITE_NAMES) {
    if (!wanted.has(suite)) continue;
    switch (suite) {
      case "sctp":
        for (const r of await runSctpPlan(adapter, options)) out.push({ suite, ...r });
        break;
      case "service":
        out.push(...(await runProperties(suite, SERVICE_SUITE, adapter, options)));
        break;
      case "policy":
        out.push(...(await runProperties(suite, NETWORK_POLICY_SUITE, adapter, options)));
        break;
      default:
        assertNever(suite);
    }
  }
  return out;
}
