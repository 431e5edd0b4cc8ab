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
import { deliveredTo } from "./agree.js";
import { isLoopbackAddress, layoutOf, podAddresses } from "./layout.js";
import { canonicalIP } from "../net/index.js";

export interface VerifyRow {
  readonly probe: Probe;
  readonly predicted: string;
  readonly observed: string;
  readonly agreement: Agreement;
  readonly prediction: TraceResult;
  readonly observation: Observation;
  /** Why a probe counts as skipped although the backend observed something. */
  readonly note?: string;
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

/**
 * A probe the simulator says leaves the node unchanged for an address no part of the scenario
 * stands for (an external IP or ClusterIP port kube-proxy does not handle, from the node): what
 * happens next is up to the network beyond the node, which no backend models. Such probes are
 * reported as skipped with this reason, never compared.
 */
function leavesForUnhosted(scenario: Scenario, p: TraceResult): string | undefined {
  const layout = layoutOf(scenario);
  const hosted = new Set([
    ...layout.nodeAddresses,
    ...layout.sides.map((s) => s.external),
    ...scenario.pods.flatMap(podAddresses),
    ...scenario.remoteEndpoints,
  ]);
  if (hosted.has(canonicalIP(p.packet.dst) ?? p.packet.dst) || isLoopbackAddress(p.packet.dst))
    return undefined;
  const all = p.outcomes.every(
    (o) =>
      o.destination === undefined &&
      o.delivery === "forward" &&
      deliveredTo(p.packet, o) !== undefined,
  );
  return all && p.outcomes.length > 0
    ? `the packet leaves the node unchanged for ${p.packet.dst}, which nothing in the scenario stands for`
    : undefined;
}

/** Where verifyProbes reports how far it is (the CLI's progress line fits). */
export interface VerifyProgress {
  phase(label: string): void;
  step(done: number, total?: number): void;
}

export async function verifyProbes(
  backend: Backend,
  scenario: Scenario,
  probes: readonly Probe[],
  progress?: VerifyProgress,
): Promise<VerifyResult> {
  const total = probes.length;
  const sim = simulatorBackend();
  const simRun = await sim.open(scenario);
  progress?.phase("predicting probes");
  const predictions = probes.map((p, i) => {
    const prediction = sim.predict(simRun, p);
    progress?.step(i + 1, total);
    return prediction;
  });
  await sim.close(simRun);
  progress?.phase(`setting up ${backend.name}`);
  const running = await backend.open(scenario);
  let observations: Observation[];
  try {
    progress?.phase(`probing on ${backend.name}`);
    let done = 0;
    const counted = async (p: Probe): Promise<Observation> => {
      const o = await backend.probe(running, p);
      progress?.step(++done, total);
      return o;
    };
    observations =
      backend.probeAll !== undefined
        ? await backend.probeAll(running, probes, (n) => progress?.step((done += n), total))
        : await Promise.all(probes.map(counted));
    if (done < total) progress?.step(total, total);
  } finally {
    await backend.close(running);
  }
  const rows = probes.map((probe, i): VerifyRow => {
    const prediction = predictions[i]!;
    const observation = observations[i]!;
    const note =
      observation.kind === "skipped" ? undefined : leavesForUnhosted(scenario, prediction);
    return {
      probe,
      predicted: describePrediction(prediction),
      observed: describeObservation(observation),
      agreement: note !== undefined ? "skipped" : compareObservation(prediction, observation),
      prediction,
      observation,
      ...(note !== undefined ? { note } : {}),
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
