/**
 * Running one test of the SCTP plan against an adapter on a backend, outside any test
 * framework (the jest suite and the `conformance` command both call this).
 */
import type { Backend } from "../../backends/backend.js";
import { kernelModuleState, type ModuleState } from "../../backends/linux/kernel-module.js";
import { simulatorBackend } from "../../backends/simulator/backend.js";
import type { ConformanceAdapter } from "./adapter.js";
import { sctpCluster, sctpNode } from "./fixture.js";
import { closeRun, openRun, type OpenRun } from "./probe-check.js";
import { SCTP_PLAN, type PlanContext, type PlanTest } from "./sctp-plan.js";
import { scenarioOfAdapter } from "./scenario.js";

/** Reads whether a kernel module is loaded (the sctp.ko side condition watches `sctp`). */
export interface KernelWatch {
  moduleState(name: string): ModuleState;
}

export interface ConformanceOptions {
  /** Where probes run; default the simulator. */
  readonly backend?: Backend;
  /**
   * How the sctp.ko side condition reads the kernel's modules when the backend runs on this
   * machine's kernel (netns); default /proc/modules and /sys/module. For tests of the check.
   */
  readonly kernel?: KernelWatch;
}

export interface PlanResult {
  readonly group: PlanTest["group"];
  readonly name: string;
  /** Empty when the test passed. */
  readonly failures: readonly string[];
  /** What the test could not check here and why, or what it observed (e.g. on the kernel). */
  readonly notes?: readonly string[];
}

/** Backends whose scenarios run on this machine's kernel (its modules are the ones to watch). */
const KERNEL_BACKENDS: readonly string[] = ["netns"];
const realKernel: KernelWatch = { moduleState: (name) => kernelModuleState(name) };

/** The plan's tests this adapter's features make applicable. */
export function applicableTests(adapter: ConformanceAdapter): PlanTest[] {
  const proxier = adapter.proxier ?? "iptables";
  return SCTP_PLAN.filter(
    (t) =>
      (t.feature === undefined || adapter.features.includes(t.feature)) &&
      (t.proxiers === undefined || t.proxiers.includes(proxier)),
  );
}

/** A plan test's scenario, open on the backend (and the simulator). */
interface Session {
  readonly cluster: ReturnType<typeof sctpCluster>;
  readonly state: Awaited<ReturnType<typeof scenarioOfAdapter>>["state"];
  readonly run: OpenRun;
  readonly kernel?: PlanContext["kernel"];
}

async function openSession(
  adapter: ConformanceAdapter,
  backend: Backend,
  options: ConformanceOptions,
  watchKernel: boolean,
): Promise<Session> {
  const cluster = sctpCluster();
  const { scenario, state } = await scenarioOfAdapter(adapter, cluster, sctpNode());
  // Read before the scenario's rules go into the kernel: loading them could load a module.
  const watch =
    watchKernel && KERNEL_BACKENDS.includes(backend.name)
      ? (options.kernel ?? realKernel)
      : undefined;
  const kernel =
    watch === undefined
      ? undefined
      : { sctpBefore: watch.moduleState("sctp"), sctpNow: () => watch.moduleState("sctp") };
  const run = await openRun(backend, scenario, adapter.name);
  return { cluster, state, run, ...(kernel !== undefined ? { kernel } : {}) };
}

async function runInSession(session: Session, test: PlanTest): Promise<PlanResult> {
  const notes: string[] = [];
  const failures = await test.check({
    run: session.run,
    cluster: session.cluster,
    state: session.state,
    ...(session.kernel !== undefined ? { kernel: session.kernel } : {}),
    note: (text) => notes.push(text),
  });
  return {
    group: test.group,
    name: test.name,
    failures,
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** One plan test in a scenario of its own, opened for it and closed after it. */
export async function runPlanTest(
  adapter: ConformanceAdapter,
  test: PlanTest,
  options: ConformanceOptions = {},
): Promise<PlanResult> {
  const backend = options.backend ?? simulatorBackend();
  const session = await openSession(adapter, backend, options, true);
  try {
    return await runInSession(session, test);
  } finally {
    await closeRun(session.run);
  }
}

/**
 * Every applicable plan test, in the plan's order. The tests that only probe share one scenario
 * (building namespaces and loading rules is most of a kernel backend's time); a test that watches
 * the kernel from before its scenario is loaded gets one of its own (PlanTest.watchesKernel).
 */
export async function runSctpPlan(
  adapter: ConformanceAdapter,
  options: ConformanceOptions = {},
): Promise<PlanResult[]> {
  const backend = options.backend ?? simulatorBackend();
  const out: PlanResult[] = [];
  let shared: Session | undefined;
  try {
    for (const t of applicableTests(adapter)) {
      if (t.watchesKernel === true) {
        out.push(await runPlanTest(adapter, t, { ...options, backend }));
        continue;
      }
      shared ??= await openSession(adapter, backend, options, false);
      out.push(await runInSession(shared, t));
    }
  } finally {
    if (shared !== undefined) await closeRun(shared.run);
  }
  return out;
}
