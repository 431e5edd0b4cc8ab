/**
 * From final branches to outcomes: the verdict (DROP/REJECT if stopped, else DNAT if the
 * destination was translated, else ACCEPT if an ACCEPT rule decided, else NONE), then merged
 * by (verdict, destination, masquerade) with probabilities summed, sorted by destination.
 */
import { formatIP, joinHostPort } from "../../net/index.js";
import type { FinalBranch } from "./hooks.js";
import type { ConntrackEntry, TraceOutcome, TraceProtocol, TraceStep, TraceVerdict } from "./result.js";
import { hex } from "./walk.js";
import { toArray, type WalkState } from "./walk-state.js";

export interface BuiltOutcome {
  readonly outcome: TraceOutcome;
  readonly steps: readonly TraceStep[];
}

function verdictOf(f: FinalBranch): TraceVerdict {
  if (f.stoppedBy !== undefined) return f.stoppedBy;
  if (f.state.dnat) return "DNAT";
  return f.state.accepted ? "ACCEPT" : "NONE";
}

function conntrackOf(proto: TraceProtocol, original: WalkState["pkt"], s: WalkState): ConntrackEntry {
  const p = s.pkt;
  return {
    proto,
    family: p.family,
    original: { src: formatIP(original.src), sport: original.sport, dst: formatIP(original.dst), dport: original.dport },
    reply: { src: formatIP(p.dst), sport: p.dport, dst: formatIP(p.src), dport: p.sport },
    dnat: s.dnat,
    snat: s.snat,
    mark: p.mark,
  };
}

export function buildOutcome(
  f: FinalBranch,
  proto: TraceProtocol,
  original: WalkState["pkt"],
  scale = 1,
): BuiltOutcome {
  const s = f.state;
  const verdict = verdictOf(f);
  const stepsList = toArray(s.steps);
  stepsList.push({ kind: "verdict", verdict, where: f.delivery });
  const outcome: TraceOutcome = {
    verdict,
    ...(s.dnat ? { destination: joinHostPort(formatIP(s.pkt.dst), s.pkt.dport) } : {}),
    masquerade: s.snat,
    probability: s.prob * scale,
    path: toArray(s.path),
    mark: hex(s.pkt.mark),
    ...(s.snat ? { source: joinHostPort(formatIP(s.pkt.src), s.pkt.sport) } : {}),
    delivery: f.delivery,
    ...(f.stoppedBy === undefined && !s.untracked ? { conntrack: conntrackOf(proto, original, s) } : {}),
  };
  return { outcome, steps: stepsList };
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Merges equal (verdict, destination, masquerade) outcomes and sorts them. */
export function mergeOutcomes(list: readonly BuiltOutcome[]): BuiltOutcome[] {
  const byKey = new Map<string, { outcome: TraceOutcome; steps: readonly TraceStep[] }>();
  for (const b of list) {
    if (b.outcome.probability <= 0) continue;
    const key = `${b.outcome.verdict}|${b.outcome.destination ?? ""}|${b.outcome.masquerade}`;
    const prev = byKey.get(key);
    if (prev === undefined) byKey.set(key, { outcome: b.outcome, steps: b.steps });
    else
      byKey.set(key, {
        outcome: { ...prev.outcome, probability: prev.outcome.probability + b.outcome.probability },
        steps: prev.steps,
      });
  }
  return [...byKey.values()].sort(
    (a, b) =>
      compareStrings(a.outcome.destination ?? "", b.outcome.destination ?? "") ||
      compareStrings(a.outcome.verdict, b.outcome.verdict) ||
      Number(a.outcome.masquerade) - Number(b.outcome.masquerade),
  );
}
