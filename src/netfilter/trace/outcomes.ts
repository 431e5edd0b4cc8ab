/**
 * From final branches to outcomes: the verdict (DROP/REJECT if stopped, else DNAT if the
 * destination was translated, else ACCEPT if an ACCEPT rule decided, else NONE), then merged
 * by (verdict, destination, masquerade) with probabilities summed, sorted by destination.
 */
import { formatIP, joinHostPort } from "../../net/index.js";
import type { FinalBranch } from "./hooks.js";
import type {
  ConntrackEntry,
  TraceOutcome,
  TraceProtocol,
  TraceStep,
  TraceVerdict,
} from "./result.js";
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

function conntrackOf(
  proto: TraceProtocol,
  original: WalkState["pkt"],
  s: WalkState,
): ConntrackEntry {
  const p = s.pkt;
  return {
    proto,
    family: p.family,
    original: {
      src: formatIP(original.src),
      sport: original.sport,
      dst: formatIP(original.dst),
      dport: original.dport,
    },
    reply: { src: formatIP(p.dst), sport: p.dport, dst: formatIP(p.src), dport: p.sport },
    dnat: s.dnat,
    snat: s.snat,
    mark: p.mark,
  };
}

function buildOutcome(
  f: FinalBranch,
  proto: TraceProtocol,
  original: WalkState["pkt"],
): BuiltOutcome {
  const s = f.state;
  const verdict = verdictOf(f);
  const stepsList: TraceStep[] = toArray(s.steps);
  stepsList.push({ kind: "verdict", verdict, where: f.delivery });
  const outcome: TraceOutcome = {
    verdict,
    ...(s.dnat ? { destination: joinHostPort(formatIP(s.pkt.dst), s.pkt.dport) } : {}),
    masquerade: s.snat,
    probability: s.prob,
    path: toArray(s.path),
    mark: hex(s.pkt.mark),
    ...(s.snat ? { source: joinHostPort(formatIP(s.pkt.src), s.pkt.sport) } : {}),
    delivery: f.delivery,
    ...(f.stoppedBy === undefined && !s.untracked
      ? { conntrack: conntrackOf(proto, original, s) }
      : {}),
  };
  return { outcome, steps: stepsList };
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface WeightedFinal {
  readonly final: FinalBranch;
  /** Multiplies the branch's own probability (the repeat scenario's weighting). */
  readonly scale: number;
}

/**
 * Merges final branches with equal (verdict, destination, masquerade), summing probabilities,
 * and builds one outcome per group (from its first branch), sorted by destination. Grouping
 * before building keeps the printing work per outcome, not per branch.
 */
export function mergeFinals(
  list: readonly WeightedFinal[],
  proto: TraceProtocol,
  original: WalkState["pkt"],
): BuiltOutcome[] {
  const groups = new Map<string, { first: FinalBranch; probability: number }>();
  for (const { final, scale } of list) {
    const p = final.state.prob * scale;
    if (p <= 0) continue;
    const s = final.state;
    const key = `${verdictOf(final)}|${s.dnat ? `${s.pkt.dst.value}/${s.pkt.dport}` : ""}|${s.snat}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { first: final, probability: p });
    else g.probability += p;
  }
  const built: BuiltOutcome[] = [];
  for (const g of groups.values()) {
    const b = buildOutcome(g.first, proto, original);
    built.push({ outcome: { ...b.outcome, probability: g.probability }, steps: b.steps });
  }
  return built.sort(
    (a, b) =>
      compareStrings(a.outcome.destination ?? "", b.outcome.destination ?? "") ||
      compareStrings(a.outcome.verdict, b.outcome.verdict) ||
      Number(a.outcome.masquerade) - Number(b.outcome.masquerade),
  );
}
