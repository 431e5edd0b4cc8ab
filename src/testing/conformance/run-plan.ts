/**
 * Running one test of the SCTP plan against an adapter on a backend, outside any test
 * framework (the jest suite and the `conformance` command both call this).
 */
import type { Backend } from "../../backends/backend.js";
import { simulatorBackend } from "../../backends/simulator/backend.js";
import type { ConformanceAdapter } from "./adapter.js";
import { sctpCluster, sctpNode } from "./fixture.js";
import { closeRun, openRun } from "./probe-check.js";
import { SCTP_PLAN, type PlanTest } from "./sctp-plan.js";
import { scenarioOfAdapter } from "./scenario.js";

export interface ConformanceOptions {
  /** Where probes run; default the simulator. */
  readonly backend?: Backend;
}

export interface PlanResult {
  readonly group: PlanTest["group"];
  readonly name: string;
  /** Empty when the test passed. */
  readonly failures: readonly string[];
}

/** The plan's tests this adapter's features make applicable. */
export function applicableTests(adapter: ConformanceAdapter): PlanTest[] {
  const proxier = adapter.proxier ?? "iptables";
  return SCTP_PLAN.filter(
    (t) =>
      (t.feature === undefined || adapter.features.includes(t.feature)) &&
      (t.proxiers === undefined || t.proxiers.includes(proxier)),
  );
}

export async function runPlanTest(
  adapter: ConformanceAdapter,
  test: PlanTest,
  options: ConformanceOptions = {},
): Promise<PlanResult> {
  const backend = options.backend ?? simulatorBackend();
  const cluster = sctpCluster();
  const { scenario, state } = await scenarioOfAdapter(adapter, cluster, sctpNode());
  const run = await openRun(backend, scenario, adapter.name);
  try {
    return {
      group: test.group,
      name: test.name,
      failures: await test.check({ run, cluster, state }),
    };
  } finally {
    await closeRun(run);
  }
}

export async function runSctpPlan(
  adapter: ConformanceAdapter,
  options: ConformanceOptions = {},
): Promise<PlanResult[]> {
  const out: PlanResult[] = [];
  for (const t of applicableTests(adapter)) out.push(await runPlanTest(adapter, t, options));
  return out;
}
