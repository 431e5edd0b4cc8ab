/**
 * From final branches to outcomes: the verdict (DROP/REJECT if stopped, else DNAT if the
 * destination was translated, else ACCEPT if an ACCEPT rule decided, else NONE), then merged
 * by (verdict, destination, masquerade) with probabilities summed, sorted by destination.
 */
import { formatIP, joinHostPort, type IPAddress } from "../../net/index.js";
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

/** Printed addresses, memoized per merge: outcomes share the original tuple and often addresses. */
class Printer {
  private lastIp: IPAddress | undefined;
  private lastText = "";
  ip(a: IPAddress): string {
    if (
      this.lastIp !== undefined &&
      a.value === this.lastIp.value &&
      a.family === this.lastIp.family
    )
      return this.lastText;
    this.lastIp = a;
    this.lastText = formatIP(a);
    return this.lastText;
  }
}

function conntrackOf(
  proto: TraceProtocol,
  original: OriginalPrinted,
  s: WalkState,
  dst: string,
  src: string,
): ConntrackEntry {
  const p = s.pkt;
  return {
    proto,
    family: p.family,
    original: original.tuple,
    reply: { src: dst, sport: p.dport, dst: src, dport: p.sport },
    dnat: s.dnat,
    snat: s.snat,
    mark: p.mark,
  };
}

interface OriginalPrinted {
  readonly tuple: ConntrackEntry["original"];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function buildOutcome(
  f: FinalBranch,
  verdict: TraceVerdict,
  probability: number,
  proto: TraceProtocol,
  original: OriginalPrinted,
  printer: Printer,
): BuiltOutcome {
  const s = f.state;
  const stepsList: TraceStep[] = toArray(s.steps);
  stepsList.push({ kind: "verdict", verdict, where: f.delivery });
  const dst = printer.ip(s.pkt.dst);
  const src = formatIP(s.pkt.src);
  // Properties in the order of the JSON contract (the printed output depends on it).
  const outcome = { verdict } as Mutable<TraceOutcome>;
  if (s.dnat) outcome.destination = joinHostPort(dst, s.pkt.dport);
  outcome.masquerade = s.snat;
  outcome.probability = probability;
  outcome.path = toArray(s.path);
  outcome.mark = hex(s.pkt.mark);
  if (s.snat) outcome.source = joinHostPort(src, s.pkt.sport);
  outcome.delivery = f.delivery;
  if (f.stoppedBy === undefined && !s.untracked)
    outcome.conntrack = conntrackOf(proto, original, s, dst, src);
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
  // Groups by (verdict, destination if translated, masquerade); a linear scan while there are
  // few groups (the usual case), a Map keyed by text beyond that.
  const groups: Group[] = [];
  let byKey: Map<string, Group> | undefined;
  for (const { final, scale } of list) {
    const p = final.state.prob * scale;
    if (p <= 0) continue;
    const s = final.state;
    const verdict = verdictOf(final);
    let g: Group | undefined;
    if (byKey === undefined) {
      for (const c of groups)
        if (
          c.verdict === verdict &&
          c.snat === s.snat &&
          c.dnat === s.dnat &&
          (!s.dnat ||
            (c.first.state.pkt.dport === s.pkt.dport &&
              c.first.state.pkt.dst.value === s.pkt.dst.value))
        ) {
          g = c;
          break;
        }
    } else g = byKey.get(groupKey(verdict, s));
    if (g !== undefined) {
      g.probability += p;
      continue;
    }
    const created: Group = { first: final, verdict, dnat: s.dnat, snat: s.snat, probability: p };
    groups.push(created);
    if (byKey !== undefined) byKey.set(groupKey(verdict, s), created);
    else if (groups.length > 16) {
      byKey = new Map();
      for (const c of groups) byKey.set(groupKey(c.verdict, c.first.state), c);
    }
  }
  const printer = new Printer();
  const printed: OriginalPrinted = {
    tuple: {
      src: printer.ip(original.src),
      sport: original.sport,
      dst: formatIP(original.dst),
      dport: original.dport,
    },
  };
  const built: BuiltOutcome[] = [];
  for (const g of groups)
    built.push(buildOutcome(g.first, g.verdict, g.probability, proto, printed, printer));
  return built.sort(
    (a, b) =>
      compareStrings(a.outcome.destination ?? "", b.outcome.destination ?? "") ||
      compareStrings(a.outcome.verdict, b.outcome.verdict) ||
      Number(a.outcome.masquerade) - Number(b.outcome.masquerade),
  );
}

interface Group {
  readonly first: FinalBranch;
  readonly verdict: TraceVerdict;
  readonly dnat: boolean;
  readonly snat: boolean;
  probability: number;
}

function groupKey(verdict: TraceVerdict, s: WalkState): string {
  return `${verdict}|${s.dnat ? `${s.pkt.dst.value}/${s.pkt.dport}` : ""}|${s.snat}`;
}
