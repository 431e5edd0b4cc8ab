/**
 * One probe of a conformance test: run it on the backend, compare the observation with what the
 * reference semantics expect, and on a mismatch say it all in one message — the probe, the
 * expected and the traced outcome, and the rule path through the plugin's own rules (from the
 * simulator's trace of the same scenario, whatever backend observed it).
 */
import { describeObservation, describePrediction } from "../../backends/agree.js";
import type {
  Backend,
  Observation,
  Probe,
  RunningScenario,
  Scenario,
} from "../../backends/backend.js";
import { simulatorBackend, type SimulatorBackend } from "../../backends/simulator/backend.js";

/** What the reference says about a probe: reach one of these `ip:port`, or none of them. */
export type Expectation =
  | { readonly kind: "reaches"; readonly targets: readonly string[]; readonly because: string }
  | { readonly kind: "avoids"; readonly targets: readonly string[]; readonly because: string };

/** A scenario open on the backend under test and on the simulator (for rule paths). */
export interface OpenRun {
  readonly backend: Backend;
  readonly running: RunningScenario;
  readonly simulator: SimulatorBackend;
  readonly simulated: RunningScenario;
  readonly adapterName: string;
}

export async function openRun(
  backend: Backend,
  scenario: Scenario,
  adapterName: string,
): Promise<OpenRun> {
  const simulator = simulatorBackend();
  const simulated = await simulator.open(scenario);
  const running = backend.name === "simulator" ? simulated : await backend.open(scenario);
  return { backend, running, simulator, simulated, adapterName };
}

export async function closeRun(run: OpenRun): Promise<void> {
  if (run.running !== run.simulated) await run.backend.close(run.running);
  await run.simulator.close(run.simulated);
}

export function describeProbe(p: Probe): string {
  return `${p.protocol.toUpperCase()} ${p.from} → ${p.to}:${p.port}`;
}

function describeExpectation(e: Expectation): string {
  const targets = e.targets.join(" or ");
  return e.kind === "reaches"
    ? `delivered to ${targets} (${e.because})`
    : `not delivered to ${targets} (${e.because})`;
}

function meets(o: Observation, e: Expectation): boolean {
  const reached = o.kind === "delivered" && e.targets.includes(o.to);
  return e.kind === "reaches" ? reached : !reached;
}

/**
 * What the backend observes for each probe: all at once where it can run them together (the
 * netns backend: one client per source namespace, each probe its own connection with its own
 * timeout), else one after another.
 */
export async function observeAll(run: OpenRun, probes: readonly Probe[]): Promise<Observation[]> {
  if (run.backend.probeAll !== undefined) return run.backend.probeAll(run.running, probes);
  const out: Observation[] = [];
  for (const p of probes) out.push(await run.backend.probe(run.running, p));
  return out;
}

/** For each probe: undefined when it behaves as expected, else the failure message. Observed together (observeAll). */
export async function checkProbes(
  run: OpenRun,
  probes: readonly (readonly [Probe, Expectation])[],
): Promise<(string | undefined)[]> {
  const observed = await observeAll(
    run,
    probes.map(([p]) => p),
  );
  const out: (string | undefined)[] = [];
  for (const [i, [p, e]] of probes.entries()) out.push(await judge(run, p, e, observed[i]!));
  return out;
}

async function judge(
  run: OpenRun,
  probe: Probe,
  expected: Expectation,
  observation: Observation,
): Promise<string | undefined> {
  let observed = observation;
  let note = "";
  if (observed.kind === "skipped") {
    // The backend cannot run this probe (e.g. no SCTP sockets): the simulator's trace decides.
    note = ` (${run.backend.name}: ${observed.reason}; traced by the simulator)`;
    observed = await run.simulator.probe(run.simulated, probe);
  }
  if (meets(observed, expected)) return undefined;
  const prediction = run.simulator.predict(run.simulated, probe);
  const paths = prediction.outcomes.map(
    (o) =>
      `    ${o.verdict} p=${Math.round(o.probability * 1000) / 1000}: ${o.path.join(" → ") || "(no rule matched)"}`,
  );
  return [
    `probe ${describeProbe(probe)} through ${run.adapterName}`,
    `  expected: ${describeExpectation(expected)}`,
    `  traced:   ${describeObservation(observed)}${note}`,
    `  all traced outcomes: ${describePrediction(prediction)}`,
    `  rule path:`,
    ...paths,
  ].join("\n");
}
