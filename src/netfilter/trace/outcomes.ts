/**
 * From final branches to outcomes: the verdict (DROP/REJECT if stopped, else DNAT if the
 * destination was translated, else ACCEPT if an ACCEPT rule decided, else NONE), then merged
 * by (verdict, destination, masquerade) with probabilities summed, sorted by destination.
 */
import {
  formatIP,
  joinHostPort,
  type IPAddress,
  type IPFamily,
  type PortRange,
} from "../../net/index.js";
import type { FinalBranch } from "./hooks.js";
import type {
  ConntrackEntry,
  Delivery,
  TraceOutcome,
  TraceProtocol,
  TraceStep,
  TraceVerdict,
} from "./result.js";
import { assertNever } from "../../util/assert-never.js";
import { hex } from "./walk.js";
import { toArray, type WalkState } from "./walk-state.js";

export interface BuiltOutcome {
  readonly outcome: TraceOutcome;
  readonly steps: readonly TraceStep[];
  /** What the outcome was built from (the flow cache rebuilds outcomes from these). */
  readonly parts: OutcomeParts;
}

/** Everything an outcome is printed from: a merged group's first branch, as plain values. */
export interface OutcomeParts {
  readonly verdict: TraceVerdict;
  readonly probability: number;
  readonly delivery: Delivery;
  readonly stopped: boolean;
  readonly dnat: boolean;
  readonly snat: boolean;
  readonly untracked: boolean;
  readonly family: IPFamily;
  readonly src: IPAddress;
  readonly sport: number;
  readonly dst: IPAddress;
  readonly dport: number;
  readonly mark: number;
  /** See TraceOutcome.sourcePorts. */
  readonly randomPort: PortRange | undefined;
  readonly path: readonly string[];
  /** The explanation steps, without the final verdict step. */
  readonly steps: readonly TraceStep[];
}

function verdictOf(f: FinalBranch): TraceVerdict {
  if (f.stoppedBy !== undefined) return f.stoppedBy;
  if (f.state.dnat) return "DNAT";
  return f.state.accepted ? "ACCEPT" : "NONE";
}

/** The last address printed, and its text. */
class LastIp {
  private ip: IPAddress | undefined;
  private text = "";
  reset(): void {
    this.ip = undefined;
    this.text = "";
  }
  print(a: IPAddress): string {
    const last = this.ip;
    if (last === undefined || a.value !== last.value || a.family !== last.family) {
      this.ip = a;
      this.text = formatIP(a);
    }
    return this.text;
  }
}

/** Printed addresses, memoized per merge: outcomes share the original tuple and often addresses. */
export class Printer {
  private readonly lastIp = new LastIp();
  // Remembered apart: sources repeat across outcomes while destinations vary.
  private readonly lastSource = new LastIp();
  private lastMark = -1;
  private lastMarkText = "";
  // The last `source:sport` (a packet's masqueraded outcomes mostly share it).
  private lastHost = "";
  private lastPort = -1;
  private lastHostPort = "";
  /** As new (a printer kept for reuse forgets what it printed). */
  reset(): void {
    this.lastIp.reset();
    this.lastSource.reset();
    this.lastMark = -1;
    this.lastMarkText = "";
    this.lastHost = "";
    this.lastPort = -1;
    this.lastHostPort = "";
  }
  /** `joinHostPort(host, port)`. */
  hostPort(host: string, port: number): string {
    if (host !== this.lastHost || port !== this.lastPort) {
      this.lastHost = host;
      this.lastPort = port;
      this.lastHostPort = joinHostPort(host, port);
    }
    return this.lastHostPort;
  }
  ip(a: IPAddress): string {
    return this.lastIp.print(a);
  }
  source(a: IPAddress): string {
    return this.lastSource.print(a);
  }
  /** `hex(mark)`. */
  mark(m: number): string {
    if (m !== this.lastMark) {
      this.lastMark = m;
      this.lastMarkText = hex(m);
    }
    return this.lastMarkText;
  }
}

export type OriginalTuple = ConntrackEntry["original"];

/** The packet's own tuple, printed (conntrack's original direction). */
export function originalTuple(printer: Printer, p: WalkState["pkt"]): OriginalTuple {
  return { src: printer.ip(p.src), sport: p.sport, dst: formatIP(p.dst), dport: p.dport };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function outcomeOf(
  parts: OutcomeParts,
  proto: TraceProtocol,
  original: OriginalTuple,
  printer: Printer,
): BuiltOutcome {
  const { verdict } = parts;
  const steps =
    parts.steps.length === 0
      ? verdictOnly(verdict, parts.delivery)
      : [...parts.steps, { kind: "verdict" as const, verdict, where: parts.delivery }];
  const dst = printer.ip(parts.dst);
  const src = printer.source(parts.src);
  const outcome = outcomeRecord({
    verdict,
    destination: parts.dnat ? joinHostPort(dst, parts.dport) : undefined,
    masquerade: parts.snat,
    probability: parts.probability,
    path: parts.path,
    mark: printer.mark(parts.mark),
    source: parts.snat ? printer.hostPort(src, parts.sport) : undefined,
    sourcePorts: parts.randomPort !== undefined ? portRangeText(parts.randomPort) : undefined,
    delivery: parts.delivery,
    conntrack:
      parts.stopped || parts.untracked
        ? undefined
        : {
            proto,
            family: parts.family,
            original,
            reply: { src: dst, sport: parts.dport, dst: src, dport: parts.sport },
            dnat: parts.dnat,
            snat: parts.snat,
            mark: parts.mark,
          },
  });
  return { outcome, steps, parts };
}

const VERDICTS: readonly TraceVerdict[] = ["DNAT", "ACCEPT", "DROP", "REJECT", "NONE"];
const DELIVERIES: readonly Delivery[] = ["local", "forward", "ipvs", "stopped"];

/**
 * The explanation of an outcome without steps (a walk without explanations): its verdict step
 * alone, one frozen list per verdict and delivery that every such outcome shares (as the flow
 * cache's outcomes do), at `DELIVERIES.length * verdict's index + delivery's index`.
 */
const verdictOnlyLists: readonly (readonly TraceStep[])[] = VERDICTS.flatMap((verdict) =>
  DELIVERIES.map((where) =>
    Object.freeze([Object.freeze({ kind: "verdict" as const, verdict, where })]),
  ),
);

export function verdictOnly(verdict: TraceVerdict, where: Delivery): readonly TraceStep[] {
  // Switches, not a Map: every outcome of every trace asks (the texts compare by identity).
  return verdictOnlyLists[DELIVERIES.length * verdictIndex(verdict) + deliveryIndex(where)]!;
}

/** `VERDICTS.indexOf(v)`. */
function verdictIndex(v: TraceVerdict): number {
  switch (v) {
    case "DNAT":
      return 0;
    case "ACCEPT":
      return 1;
    case "DROP":
      return 2;
    case "REJECT":
      return 3;
    case "NONE":
      return 4;
  }
  return assertNever(v);
}

/** `DELIVERIES.indexOf(d)`. */
function deliveryIndex(d: Delivery): number {
  switch (d) {
    case "local":
      return 0;
    case "forward":
      return 1;
    case "ipvs":
      return 2;
    case "stopped":
      return 3;
  }
  return assertNever(d);
}

/** No steps (a walk without explanations). */
export const NO_STEPS: readonly TraceStep[] = Object.freeze([]);

/**
 * An outcome's properties, every one present: an absent optional one is undefined here. One
 * object rather than ten positional parameters (the three optional strings are easily swapped).
 */
export interface OutcomeFields {
  readonly verdict: TraceVerdict;
  readonly destination: string | undefined;
  readonly masquerade: boolean;
  readonly probability: number;
  readonly path: readonly string[];
  readonly mark: string;
  readonly source: string | undefined;
  readonly sourcePorts: string | undefined;
  readonly delivery: Delivery;
  readonly conntrack: ConntrackEntry | undefined;
}

/**
 * An outcome with its properties in the JSON contract's order (the printed output depends on
 * it), without the undefined ones. The usual shapes are written as literals: an object grown
 * property by property keeps the later ones in a separate store, reallocated as it grows, and
 * an outcome is made for every trace, flow cache hits included.
 */
export function outcomeRecord(f: OutcomeFields): TraceOutcome {
  const { verdict, destination, masquerade, probability, path, mark, source, sourcePorts } = f;
  const { delivery, conntrack } = f;
  if (conntrack !== undefined && (source !== undefined || sourcePorts === undefined)) {
    if (destination !== undefined) {
      if (source === undefined)
        return { verdict, destination, masquerade, probability, path, mark, delivery, conntrack };
      if (sourcePorts === undefined)
        return {
          verdict,
          destination,
          masquerade,
          probability,
          path,
          mark,
          source,
          delivery,
          conntrack,
        };
      return {
        verdict,
        destination,
        masquerade,
        probability,
        path,
        mark,
        source,
        sourcePorts,
        delivery,
        conntrack,
      };
    }
    if (source === undefined)
      return { verdict, masquerade, probability, path, mark, delivery, conntrack };
    if (sourcePorts === undefined)
      return { verdict, masquerade, probability, path, mark, source, delivery, conntrack };
    return {
      verdict,
      masquerade,
      probability,
      path,
      mark,
      source,
      sourcePorts,
      delivery,
      conntrack,
    };
  }
  return grownOutcome(f);
}

/**
 * The same outcome grown property by property in the contract's order: the general path, and
 * the reference `outcomeRecord`'s literals are tested against.
 */
export function grownOutcome(f: OutcomeFields): TraceOutcome {
  const outcome = { verdict: f.verdict } as Mutable<TraceOutcome>;
  if (f.destination !== undefined) outcome.destination = f.destination;
  outcome.masquerade = f.masquerade;
  outcome.probability = f.probability;
  outcome.path = f.path;
  outcome.mark = f.mark;
  if (f.source !== undefined) outcome.source = f.source;
  if (f.sourcePorts !== undefined) outcome.sourcePorts = f.sourcePorts;
  outcome.delivery = f.delivery;
  if (f.conntrack !== undefined) outcome.conntrack = f.conntrack;
  return outcome;
}

function partsOf(f: FinalBranch, verdict: TraceVerdict, probability: number): OutcomeParts {
  const s = f.state;
  const p = s.pkt;
  return {
    verdict,
    probability,
    delivery: f.delivery,
    stopped: f.stoppedBy !== undefined,
    dnat: s.dnat,
    snat: s.snat,
    untracked: s.untracked,
    family: p.family,
    src: p.src,
    sport: p.sport,
    dst: p.dst,
    dport: p.dport,
    mark: p.mark,
    randomPort: s.randomPort,
    path: toArray(s.path),
    steps: toArray(s.steps),
  };
}

export function portRangeText(r: PortRange): string {
  return `${r.from}-${r.to}`;
}

/**
 * `built.sort(compareOutcomes)` in place, by insertion (stable, as Array.prototype.sort; a
 * trace has a few outcomes, and the built-in sort allocates a work array for each call).
 */
export function sortOutcomes(built: BuiltOutcome[]): BuiltOutcome[] {
  for (let i = 1; i < built.length; i++) {
    const b = built[i]!;
    let j = i - 1;
    for (; j >= 0 && compareOutcomes(built[j]!, b) > 0; j--) built[j + 1] = built[j]!;
    built[j + 1] = b;
  }
  return built;
}

/** Outcomes in their printed order: by destination, verdict, then masquerade. */
export function compareOutcomes(a: BuiltOutcome, b: BuiltOutcome): number {
  return (
    compareStrings(a.outcome.destination ?? "", b.outcome.destination ?? "") ||
    compareStrings(a.outcome.verdict, b.outcome.verdict) ||
    Number(a.outcome.masquerade) - Number(b.outcome.masquerade)
  );
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
  const tuple = originalTuple(printer, original);
  const built: BuiltOutcome[] = [];
  for (const g of groups)
    built.push(outcomeOf(partsOf(g.first, g.verdict, g.probability), proto, tuple, printer));
  return built.sort(compareOutcomes);
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
