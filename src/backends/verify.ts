/**
 * Runs probes on a backend and on the simulator and compares them probe by probe
 * (`agrees`, agree.ts). The backend's scenario is closed whatever happens.
 */
import type { TraceResult } from "../netfilter/trace/result.js";
import {
  compareObservation,
  describeObservation,
  describePrediction,
  type Agreement,
} from "./agree.js";
import type { Backend, Observation, Probe, Scenario } from "./backend.js";
import { simulatorBackend } from "./simulator/backend.js";

export interface VerifyRow {
  readonly probe: Probe;
  readonly predicted: string;
  readonly observed: string;
  readonly agreement: Agreement;
  readonly prediction: TraceResult;
  readonly observation: Observation;
}

export interface VerifySummary {
  readonly backend: string;
  readonly probes: number;
  readonly agreed: number;
  readonly disagreed: number;
  readonly skipped: number;
}

export interface VerifyResult {
  readonly rows: readonly VerifyRow[];
  readonly summary: VerifySummary;
}

export async function verifyProbes(
  backend: Backend,
  scenario: Scenario,
  probes: readonly Probe[],
): Promise<VerifyResult> {
  const sim = simulatorBackend();
  const simRun = await sim.open(scenario);
  const predictions = probes.map((p) => sim.predict(simRun, p));
  await sim.close(simRun);
  const running = await backend.open(scenario);
  let observations: Observation[];
  try {
    observations =
      backend.probeAll !== undefined
        ? await backend.probeAll(running, probes)
        : await Promise.all(probes.map((p) => backend.probe(running, p)));
  } finally {
    await backend.close(running);
  }
  const rows = probes.map((probe, i): VerifyRow => {
    const prediction = predictions[i]!;
    const observation = observations[i]!;
    return {
      probe,
      predicted: describePrediction(prediction),
      observed: describeObservation(observation),
      agreement: compareObservation(prediction, observation),
      prediction,
      observation,
    };
  });
  const count = (a: Agreement): number => rows.filter((r) => r.agreement === a).length;
  return {
    rows,
    summary: {
      backend: backend.name,
      probes: rows.length,
      agreed: count("agree"),
      disagreed: count("disagree"),
      skipped: count("skipped"),
    },
  };
}
