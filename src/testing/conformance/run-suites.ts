/**
 * Every conformance suite against an adapter, outside any test framework (what the
 * `conformance` command runs): the SCTP test plan, the Service suite and the NetworkPolicy
 * suite, each test with its failures, in that order.
 */
import { OperationalError } from "../../issue/operational-error.js";
import { assertNever } from "../../util/assert-never.js";
import type { ConformanceAdapter } from "./adapter.js";
import type { PropertySuiteOptions } from "./property-suites.js";
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

type PropertySuites = typeof import("./property-suites.js");

/**
 * The Service and NetworkPolicy suites are fast-check properties, and fast-check is an optional
 * peer dependency: they are loaded when one of them runs, so that the CLI (and the SCTP plan)
 * work where fast-check is not installed.
 */
async function loadPropertySuites(): Promise<PropertySuites> {
  try {
    return await import("./property-suites.js");
  } catch (e) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (
      (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
      String(message).includes("fast-check")
    )
      throw new OperationalError(
        "dependency-missing",
        "the service and policy suites are fast-check properties, and fast-check is not installed: `npm install --save-dev fast-check`, or run `--suite sctp` alone",
      );
    throw e;
  }
}

async function runProperties(
  suite: "service" | "policy",
  adapter: ConformanceAdapter,
  options: PropertySuiteOptions,
): Promise<SuiteResult[]> {
  const suites = await loadPropertySuites();
  const tests = suite === "service" ? suites.SERVICE_SUITE : suites.NETWORK_POLICY_SUITE;
  const out: SuiteResult[] = [];
  for (const t of suites.applicableProperties(tests, adapter))
    out.push({
      suite,
      group: SUITE_TITLES[suite],
      name: t.name,
      failures: await suites.runProperty(t, adapter, options),
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
      case "policy":
        out.push(...(await runProperties(suite, adapter, options)));
        break;
      default:
        assertNever(suite);
    }
  }
  return out;
}
