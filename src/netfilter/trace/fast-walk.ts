/**
 * The walk without explanations, depth first over one mutable packet: the same outcomes as
 * hooks.ts + walk.ts (which stay the reference, and do explanations, IPVS, `recent` and later
 * packets of a connection), with no objects made per branch.
 *
 * A statistic split saves the packet's fields, follows the taken branch through every later
 * rule, table and hook to its end, restores the fields and goes on with the share not taken.
 * The chains a branch has to return to are a linked list of frames, so a split costs nothing
 * to copy. The hooks are a small program (`Plan`) run in the order hooks.ts runs them.
 *
 * Outcomes are merged as outcomes.ts merges final branches, in the order that walk finds them:
 * hooks.ts finishes a table for every branch before the next table, so its finals are ordered
 * by where the branch ended (the plan position) and, for the same position, by branch order,
 * which is the depth-first order. Each final is noted with its position; the probabilities of a
 * group are summed in that order (so they are bit for bit the same), and a group's outcome is
 * printed from its first branch in that order.
 *
 * The walk recurses for every rule a branch takes into a chain and back, and follows every
 * split on its own: past MAX_NESTING calls, MERGE_FROM splits or MAX_RULE_VISITS conditions it
 * gives up (a TraceError the tracer catches) and walk.ts, which loops and merges, traces the
 * packet; the two agree wherever this one finishes.
 */
import type { IPAddress, PortRange } from "../../net/index.js";
import type { Hook, Packet, TableName } from "../model.js";
import type { TargetEffect } from "../targets/extension.js";
import type { Target } from "../targets/index.js";
import { assertNever } from "../../util/assert-never.js";
import {
  bookOf,
  masqueradeSource,
  routeChoice,
  type AddressBook,
  type RouteChoice,
} from "./addressing.js";
import {
  candidateRules,
  firstAtOrAfter,
  type CompiledChain,
  type CompiledRuleSet,
} from "./chain-index.js";
import {
  APPLY,
  ARG,
  DEST,
  DEST_NEGATED,
  denseRuleSet,
  DST_MASK,
  DST_NET,
  FIXED,
  FIXED_DNAT,
  GOTO,
  JUMP,
  LEAF,
  MATCHER,
  MISSING,
  NO_TARGET,
  OP,
  RECORD,
  SOURCE,
  SOURCE_NEGATED,
  SRC_MASK,
  SRC_NET,
  TABLED,
  TARGET_BITS,
  type DenseRuleSet,
} from "./dense-rules.js";
import { candidateList } from "./dest-table.js";
import { ipv4DestinationHolds, ipv4SourceHolds } from "./rule-compile.js";
import { fixedNatHolds } from "../targets/nat-translation.js";
import { context, type BoundContext, type HookRunner, type RuleContext } from "./hooks.js";
import {
  NO_STEPS,
  outcomeOf,
  Printer,
  type BuiltOutcome,
  type OriginalTuple,
  type OutcomeParts,
  sortOutcomes,
} from "./outcomes.js";
import type { Delivery, TraceResult, TraceVerdict } from "./result.js";
import { UNTRACKED, withNatState } from "./target-effects.js";
import { MAX_RULE_VISITS, MERGE_FROM, TraceError } from "./walk.js";
import { packetWith } from "./walk-state.js";
import {
  CONNMARK,
  DPORT,
  DST,
  IN_IFACE,
  MARK,
  OUT_IFACE,
  SPORT,
  SRC,
  DST_ROUTE,
  footprint,
  routedFootprint,
} from "./footprint.js";

/** The packet as parsePacketSpec printed it. */
type PrintedPacket = TraceResult["packet"];

/** One step of the hook program. */
type Instr =
  | {
      readonly kind: "table";
      readonly hook: Hook;
      readonly table: TableName;
      /** A nat table: consulted only for the first packet of a tracked connection. */
      readonly nat: boolean;
    }
  /** Routing after PREROUTING: local destinations go on at `local`, others at `forward`. */
  | { readonly kind: "route-in"; readonly local: number; readonly forward: number }
  /** (Re-)routing of a locally generated packet: sets the outgoing interface. */
  | { readonly kind: "route-out" }
  /** After POSTROUTING of a locally generated packet: through `lo` (at `loop`), or out. */
  | { readonly kind: "loopback"; readonly loop: number }
  | { readonly kind: "final"; readonly delivery: Delivery };

type Plan = readonly Instr[];

const t = (hook: Hook, table: TableName): Extract<Instr, { kind: "table" }> => ({
  kind: "table",
  hook,
  table,
  nat: table === "nat",
});

/** A branch of the program, written without its target: `plan` sets it. */
type Unresolved =
  | Exclude<Instr, { kind: "route-in" | "loopback" }>
  | { readonly kind: "route-in" }
  | { readonly kind: "loopback" };

/**
 * The program with its branches resolved: after `route-in`, local destinations go on at the
 * first INPUT step and others at the first FORWARD step; `loopback` goes on at the first
 * PREROUTING step after it.
 */
function plan(steps: readonly Unresolved[]): Plan {
  const first = (from: number, hook: Hook): number =>
    steps.findIndex((s, k) => k > from && s.kind === "table" && s.hook === hook);
  return steps.map((s, i): Instr => {
    if (s.kind === "route-in")
      return { kind: "route-in", local: first(i, "INPUT"), forward: first(i, "FORWARD") };
    if (s.kind === "loopback") return { kind: "loopback", loop: first(i, "PREROUTING") };
    return s;
  });
}

/** hooks.ts's order for a packet from outside (tracer.ts `walkPacket`, no IPVS). */
const REMOTE: Plan = plan([
  t("PREROUTING", "raw"),
  t("PREROUTING", "mangle"),
  t("PREROUTING", "nat"),
  { kind: "route-in" },
  t("INPUT", "mangle"),
  t("INPUT", "filter"),
  t("INPUT", "security"),
  t("INPUT", "nat"),
  { kind: "final", delivery: "local" },
  t("FORWARD", "mangle"),
  t("FORWARD", "filter"),
  t("FORWARD", "security"),
  t("POSTROUTING", "mangle"),
  t("POSTROUTING", "nat"),
  { kind: "final", delivery: "forward" },
]);

/** hooks.ts's order for a locally generated packet. */
const LOCAL: Plan = plan([
  { kind: "route-out" },
  t("OUTPUT", "raw"),
  t("OUTPUT", "mangle"),
  t("OUTPUT", "nat"),
  t("OUTPUT", "filter"),
  t("OUTPUT", "security"),
  { kind: "route-out" },
  t("POSTROUTING", "mangle"),
  t("POSTROUTING", "nat"),
  { kind: "loopback" },
  { kind: "final", delivery: "forward" },
  t("PREROUTING", "raw"),
  t("PREROUTING", "mangle"),
  t("INPUT", "mangle"),
  t("INPUT", "filter"),
  t("INPUT", "security"),
  { kind: "final", delivery: "local" },
]);

/** A plan's tables in a rule set: looked up once per rule set, not per packet. */
interface PlanLayout {
  /** The built-in chain of each table step of the plan (undefined: none, or not a table). */
  readonly chains: readonly (CompiledChain | undefined)[];
  /** Their chain numbers in `dense` (-1: none). */
  readonly numbers: readonly number[];
  /** Their footprints (footprint.ts; 0: none). */
  readonly footprints: readonly number[];
  /**
   * At a routing step, the footprint of the rest of the plan (`routedFootprint` of every later
   * table step, which covers whatever step the branch takes; see `Walker.restEntry`); -1
   * elsewhere.
   */
  readonly rests: readonly number[];
  /** The rules, laid out flat (undefined without a rule set: no table step has a chain). */
  readonly dense: DenseRuleSet | undefined;
}

const NO_LAYOUT: PlanLayout = {
  chains: [],
  numbers: [],
  footprints: [],
  rests: [],
  dense: undefined,
};
const remoteLayouts = new WeakMap<CompiledRuleSet, PlanLayout>();
const localLayouts = new WeakMap<CompiledRuleSet, PlanLayout>();

/**
 * The built-in chains of a plan's table steps, looked up once per rule set: every branch of
 * every packet goes through them (two map lookups per step otherwise).
 */
function planLayout(compiled: CompiledRuleSet | undefined, plan: Plan): PlanLayout {
  if (compiled === undefined) return NO_LAYOUT;
  const cache = plan === REMOTE ? remoteLayouts : localLayouts;
  let layout = cache.get(compiled);
  if (layout === undefined) {
    const dense = denseRuleSet(compiled);
    const chains = plan.map((ins) =>
      ins.kind === "table" ? compiled.tables.get(ins.table)?.chains.get(ins.hook) : undefined,
    );
    const numbers = chains.map((c) => (c === undefined ? -1 : dense.numbers.get(c)!));
    const footprints = chains.map((c) => (c === undefined ? 0 : footprint(c)));
    const rests = plan.map((ins, pc) => {
      if (ins.kind !== "route-in" && ins.kind !== "route-out") return -1;
      let f = 0;
      for (let k = pc + 1; k < plan.length; k++) {
        const c = chains[k];
        if (c !== undefined) f |= routedFootprint(c);
      }
      return f;
    });
    cache.set(compiled, (layout = { chains, numbers, footprints, rests, dense }));
  }
  return layout;
}

/**
 * A chain to go back to when the current one returns: resume `chain` at rule `next`. Frames
 * live in the walker's pool (`framePool`): a frame is made for a jump and only read while the
 * called chain's walk runs, which ends before the jump returns, so they are taken and given
 * back in stack order and never changed while in use.
 */
interface Frame {
  /** The chain's number (dense-rules.ts). */
  chain: number;
  next: number;
  /** The chain's nesting depth (a `-g` adds depth without a frame, as in walk.ts). */
  depth: number;
  parent: Frame | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const MAX_DEPTH = 256;
/** Calls of `rules` under way before the walk gives the packet to walk.ts. */
const MAX_NESTING = 1000;
/** A TraceError the tracer catches: the reference walk then traces the packet. */
const GAVE_UP = "the depth-first walk gives up";

/** A merged group of final branches (outcomes.ts's `Group`; the walker's, filled per packet). */
interface Group {
  verdict: TraceVerdict;
  dnat: boolean;
  snat: boolean;
  dst: IPAddress;
  dport: number;
  /** Plan position of the branch the outcome is printed from. */
  rank: number;
  /** Its own object: the probability is written in once the group's shares are summed. */
  parts: Mutable<OutcomeParts>;
}

/**
 * The walk of one packet at a time. One walker per rule set and plan is kept and reused from
 * packet to packet (`walkerFor`): its arrays, its rule contexts and its saved states are
 * reset, not made again, so a packet without a split allocates little besides its outcomes.
 * Nothing of one packet's walk is read by the next: `reset` clears every per-packet field.
 */
class Walker {
  /** The one packet every branch uses, changed in place and restored on backtracking. */
  readonly pkt: Mutable<Packet>;
  /** The trace's hooks (node, flow recorder, `recent` lists), set per packet. */
  r!: HookRunner;
  /** The node's address book (`r.dp`'s), for the routing of every branch. */
  private book!: AddressBook;
  dnat = false;
  snat = false;
  accepted = false;
  untracked = false;
  /** See WalkState.randomPort. */
  randomPort: PortRange | undefined = undefined;
  prob = 1;
  /** Rule conditions evaluated: what walking this packet again would cost. */
  evaluated = 0;
  /** A walk is under way (a walker is not re-entered: a nested trace gets a walker of its own). */
  busy = false;
  /**
   * This packet's routing answers by IPv4 destination: `routeKeys[0 .. routeCount)` with the
   * route and MASQUERADE's address for it (UNASKED until asked). The statistic shares of a
   * service go to a few endpoints, each asked about again by its later shares; the answers
   * are the node's (a pure function of the destination), kept for this packet only.
   */
  private readonly routeKeys: number[] = [];
  private readonly routeChoices: RouteChoice[] = [];
  private readonly routeMasqs: (IPAddress | undefined)[] = [];
  private routeCount = 0;
  /** Splits whose share not taken is still to be walked. */
  private openSplits = 0;
  /** Splits so far, and calls of `rules` under way (each a few stack frames). */
  private splits = 0;
  private nesting = 0;
  /**
   * The rules the branch took: `path[0 .. pathLength)` (entries beyond are stale; a count,
   * not the array's length, which is slow to set).
   */
  private readonly path: string[] = [];
  private pathLength = 0;
  /**
   * The groups are `groups[0 .. groupCount)`, the finals `finals[0 .. finalsLength)`: counts,
   * as for the path (an array whose length is set to 0 gives its storage up, and grows again).
   */
  readonly groups: Group[] = [];
  groupCount = 0;
  /** Every final branch: plan position, group, probability (flattened triples). */
  readonly finals: number[] = [];
  finalsLength = 0;
  /** Per group, its summed probability (outcomesOf; -1: no final yet; `groupCount` of them). */
  readonly sums: number[] = [];
  /** The outcomes' printer (outcomesOf), reset for each packet. */
  readonly printer = new Printer();
  /** Rule contexts by plan position, made once and bound to each packet's runner. */
  private readonly contexts: (BoundContext | undefined)[] = [];
  /** The runner the contexts are bound to. */
  private boundTo: HookRunner | undefined = undefined;
  /**
   * Table walks recorded for replay, by plan position (this packet only): the first
   * `memoCount[pc]` entries of `memo[pc]` (entries beyond are stale, kept for reuse).
   */
  private readonly memo: MemoEntry[][] = [];
  private readonly memoCount: number[] = [];
  /** The entry being recorded at each plan position (undefined: none). */
  private readonly recording: (MemoEntry | undefined)[] = [];
  /** The rules replayed walks took: an entry's are `memoLabels[labelStart .. labelEnd)`. */
  private readonly memoLabels: string[] = [];
  private memoLabelsLength = 0;
  /** Rests of the plan recorded for replay, by routing step, as `memo` (this packet only). */
  private readonly restMemo: RestEntry[][] = [];
  private readonly restCount: number[] = [];
  private readonly restRecording: (RestEntry | undefined)[] = [];
  /** The plan positions that have a rest (PlanLayout.rests). */
  private readonly restSteps: number[] = [];
  /** The state each open split restores (by split depth; reused). */
  private readonly splitStates: Saved[] = [];
  /** Frames (see Frame): `framePool[0 .. frameTop)` are in use. */
  private readonly framePool: Frame[] = [];
  private frameTop = 0;

  /** The built-in chain of each table step of the plan (undefined: none, or not a table). */
  private readonly chains: readonly (CompiledChain | undefined)[];
  /** Their chain numbers. */
  private readonly numbers: readonly number[];
  /** Their footprints. */
  private readonly footprints: readonly number[];
  /** The rest of the plan's footprints at routing steps (PlanLayout.rests). */
  private readonly rests: readonly number[];
  /** The rules, laid out flat (undefined without a rule set: no table step has a chain). */
  private readonly d: DenseRuleSet | undefined;

  constructor(
    readonly compiled: CompiledRuleSet | undefined,
    readonly plan: Plan,
    start: Packet,
  ) {
    this.pkt = packetWith(start, {});
    const layout = planLayout(compiled, plan);
    this.chains = layout.chains;
    this.numbers = layout.numbers;
    this.footprints = layout.footprints;
    this.rests = layout.rests;
    this.rests.forEach((f, pc) => {
      if (f >= 0) this.restSteps.push(pc);
    });
    this.d = layout.dense;
  }

  /** Ready for a new packet: every per-packet field as a new walker has it. */
  reset(r: HookRunner, start: Packet): void {
    this.r = r;
    this.book = bookOf(r.dp);
    // Every field, the optional ones as undefined (packetWith's shape).
    const p = this.pkt as { -readonly [K in keyof Packet]-?: Packet[K] | undefined };
    p.family = start.family;
    p.protocol = start.protocol;
    p.src = start.src;
    p.sport = start.sport;
    p.dst = start.dst;
    p.dport = start.dport;
    p.inInterface = start.inInterface;
    p.outInterface = start.outInterface;
    p.mark = start.mark;
    p.connmark = start.connmark;
    p.ctState = start.ctState;
    p.ctOrig = start.ctOrig;
    p.icmpType = start.icmpType;
    p.icmpCode = start.icmpCode;
    p.fragment = start.fragment;
    p.tcpFlags = start.tcpFlags;
    p.ctDirection = start.ctDirection;
    this.dnat = false;
    this.snat = false;
    this.accepted = false;
    this.untracked = false;
    this.randomPort = undefined;
    this.prob = 1;
    this.evaluated = 0;
    this.openSplits = 0;
    this.routeCount = 0;
    this.splits = 0;
    this.nesting = 0;
    this.pathLength = 0;
    this.memoLabelsLength = 0;
    this.frameTop = 0;
    this.groupCount = 0;
    this.finalsLength = 0;
    for (let pc = 0; pc < this.plan.length; pc++) {
      this.memo[pc] ??= [];
      this.memoCount[pc] = 0;
      this.recording[pc] = undefined;
      this.restMemo[pc] ??= [];
      this.restCount[pc] = 0;
      this.restRecording[pc] = undefined;
    }
  }

  /** What the matches of the table at `pc` may consult. */
  ctx(pc: number): RuleContext {
    if (this.boundTo !== this.r) {
      for (const c of this.contexts) c?.bind(this.r);
      this.boundTo = this.r;
    }
    let c = this.contexts[pc];
    if (c === undefined) {
      const ins = this.plan[pc] as Extract<Instr, { kind: "table" }>;
      c = this.contexts[pc] = context(this.r, ins.hook, ins.table);
    }
    return c;
  }

  /** Runs the plan from `pc` for the current branch. */
  run(pc: number): void {
    for (;;) {
      const ins = this.plan[pc]!;
      switch (ins.kind) {
        case "table": {
          if (ins.nat && (this.untracked || !this.pkt.ctState.includes("NEW"))) break;
          const chain = this.chains[pc];
          if (chain === undefined) break;
          this.table(chain, pc);
          return;
        }
        case "route-in": {
          const k = this.routeIndex();
          const d =
            k >= 0 ? this.routeChoices[k]! : routeChoice(this.r.dp, this.pkt.dst, this.book);
          if (this.rest(pc, d, k)) return;
          this.pkt.outInterface = d.local ? "" : d.outInterface;
          pc = d.local ? ins.local : ins.forward;
          continue;
        }
        case "route-out": {
          const k = this.routeIndex();
          const d =
            k >= 0 ? this.routeChoices[k]! : routeChoice(this.r.dp, this.pkt.dst, this.book);
          if (this.rest(pc, d, k)) return;
          this.pkt.outInterface = d.outInterface;
          break;
        }
        case "loopback":
          if (this.pkt.outInterface === "lo") {
            this.pkt.inInterface = "lo";
            this.pkt.outInterface = "";
            pc = ins.loop;
            continue;
          }
          break;
        case "final":
          this.final(pc, undefined, ins.delivery);
          return;
      }
      pc++;
    }
  }

  /**
   * A table's walk for the current branch. Statistic branches often reach a table with equal
   * packets (FORWARD and POSTROUTING after a service's split, which only look at marks and
   * conntrack state): a walk without a split is recorded, and a later branch equal in every
   * field the table's chains can read or write (footprint.ts) replays it, as hooks.ts's memo.
   */
  private table(chain: CompiledChain, pc: number): void {
    const memo = this.memo[pc]!;
    const count = this.memoCount[pc]!;
    const f = this.footprints[pc]!;
    for (let k = 0; k < count; k++) {
      const m = memo[k]!;
      if (this.sameEntry(m.from, f)) {
        if (!m.done) break;
        return this.replay(m, f, pc);
      }
    }
    // Only a share not yet walked can reach this step again (the plan only goes forward): with
    // no split open, a record would never be read (a packet without a split records nothing).
    if (this.openSplits === 0 || count >= MEMO_LIMIT || this.prob <= 0)
      return this.rules(this.numbers[pc]!, 0, undefined, 0, pc);
    const entry = (memo[count] ??= blankEntry());
    this.memoCount[pc] = count + 1;
    this.saveInto(entry.from);
    entry.done = false;
    entry.prob = this.prob;
    entry.open = true;
    this.recording[pc] = entry;
    this.rules(this.numbers[pc]!, 0, undefined, 0, pc);
    entry.open = false;
  }

  /**
   * The rest of the plan from the routing step at `pc`, for a branch routed by `d`: replayed
   * (true) when an earlier branch of this packet reached this step in a state that makes the
   * rest go the same way, else recorded for later branches (false: the caller walks it).
   *
   * After a service's DNAT the statistic branches differ in their destination. From here on
   * the destination is read by the routing (`d`), by rules that test it (DST in the rest's
   * footprint: then it is compared as is) and by MASQUERADE through the node's answer for the
   * outgoing interface (DST_ROUTE: then that answer is compared). A branch equal to a recorded
   * one in those answers and in every other field the rest reads or writes takes the same rules
   * to the same end, leaving its destination as it is: the rest's rules, state and final are
   * replayed, the final printed from this branch's own packet (its destination included).
   * A rest that split is not recorded (each share is walked), as for the table memo.
   */
  private rest(pc: number, d: RouteChoice, k: number): boolean {
    const f = this.rests[pc] ?? -1;
    if (f < 0) return false;
    const count = this.restCount[pc]!;
    if (count === 0 && this.openSplits === 0) return false;
    // A local destination (no outgoing interface) is compared as is.
    const masq = f & DST_ROUTE && !d.local ? this.masqueradeFor(d, k) : undefined;
    const entries = this.restMemo[pc]!;
    for (let k = 0; k < count; k++) {
      const e = entries[k]!;
      if (this.sameRest(e, f, d, masq)) {
        if (!e.done) break;
        this.replayRest(e, f);
        return true;
      }
    }
    if (this.openSplits === 0 || count >= MEMO_LIMIT || this.prob <= 0) return false;
    const e = (entries[count] ??= blankRest());
    this.restCount[pc] = count + 1;
    this.saveInto(e.from);
    e.choice = d;
    e.masq = masq;
    e.done = false;
    e.prob = this.prob;
    e.open = true;
    this.restRecording[pc] = e;
    return false;
  }

  /** The entry of `routeKeys` for the packet's destination (added if new), or -1: not kept. */
  private routeIndex(): number {
    const dst = this.pkt.dst;
    if (dst.family !== "IPv4") return -1;
    const v = dst.value;
    const keys = this.routeKeys;
    for (let k = 0; k < this.routeCount; k++) if (keys[k] === v) return k;
    if (this.routeCount >= ROUTE_MEMO) return -1;
    const k = this.routeCount++;
    keys[k] = v;
    this.routeChoices[k] = routeChoice(this.r.dp, dst, this.book);
    this.routeMasqs[k] = UNASKED;
    return k;
  }

  /** MASQUERADE's address for the packet routed by `d` (entry `k` of `routeKeys`, or -1). */
  private masqueradeFor(d: RouteChoice, k: number): IPAddress | undefined {
    if (k >= 0 && this.routeMasqs[k] !== UNASKED) return this.routeMasqs[k];
    const masq = masqueradeSource(this.r.dp, d.outInterface, this.pkt.dst, this.book);
    if (k >= 0) this.routeMasqs[k] = masq;
    return masq;
  }

  /** Whether the rest from a routing step goes for this branch as for entry `e`'s. */
  private sameRest(e: RestEntry, f: number, d: RouteChoice, masq: IPAddress | undefined): boolean {
    const p = this.pkt;
    const s = e.from;
    const c = e.choice;
    if (d !== c && (d.local !== c.local || d.outInterface !== c.outInterface)) return false;
    if (f & DST || d.local) {
      if (p.dst.value !== s.dst.value || p.dst.family !== s.dst.family) return false;
    } else if (f & DST_ROUTE) {
      const m = e.masq;
      if (masq !== m && (masq === undefined || m === undefined || masq.value !== m.value))
        return false;
    }
    // The interfaces always: routing and the loopback step write them.
    return (
      p.inInterface === s.inInterface &&
      p.outInterface === s.outInterface &&
      (!(f & SRC) || p.src === s.src) &&
      (!(f & SPORT) || p.sport === s.sport) &&
      (!(f & DPORT) || p.dport === s.dport) &&
      (!(f & MARK) || p.mark === s.mark) &&
      (!(f & CONNMARK) || p.connmark === s.connmark) &&
      p.ctState === s.ctState &&
      this.dnat === s.dnat &&
      this.snat === s.snat &&
      this.accepted === s.accepted &&
      this.untracked === s.untracked &&
      this.randomPort === s.randomPort
    );
  }

  private replayRest(e: RestEntry, f: number): void {
    // The rest routed the packet: both interfaces are its answer, whatever it read.
    this.restoreRecorded(e.labelStart, e.labelEnd, e.to, f | IN_IFACE | OUT_IFACE);
    this.final(e.finalPc, e.stoppedBy, e.delivery);
  }

  /**
   * A recording's path labels appended, and the state it ended in restored: the fields in `f`
   * and the connection and verdict flags. Fields outside `f` were neither read nor written:
   * they keep their values.
   */
  private restoreRecorded(labelStart: number, labelEnd: number, to: Saved, f: number): void {
    const p = this.pkt;
    const labels = this.memoLabels;
    for (let k = labelStart; k < labelEnd; k++) this.path[this.pathLength++] = labels[k]!;
    if (f & SRC) p.src = to.src;
    if (f & SPORT) p.sport = to.sport;
    if (f & DST) p.dst = to.dst;
    if (f & DPORT) p.dport = to.dport;
    if (f & MARK) p.mark = to.mark;
    if (f & CONNMARK) p.connmark = to.connmark;
    if (f & IN_IFACE) p.inInterface = to.inInterface;
    if (f & OUT_IFACE) p.outInterface = to.outInterface;
    p.ctState = to.ctState;
    this.dnat = to.dnat;
    this.snat = to.snat;
    this.accepted = to.accepted;
    this.untracked = to.untracked;
    this.randomPort = to.randomPort;
  }

  /** A branch ended: the rest recordings it was walking are complete (unless it split). */
  private closeRests(
    pc: number,
    stoppedBy: "DROP" | "REJECT" | undefined,
    delivery: Delivery,
  ): void {
    for (const at of this.restSteps) {
      const rec = this.restRecording[at];
      if (rec === undefined || !rec.open) continue;
      rec.open = false;
      if (this.prob !== rec.prob || this.prob <= 0) continue;
      rec.labelStart = this.memoLabelsLength;
      for (let k = rec.from.pathLength; k < this.pathLength; k++)
        this.memoLabels[this.memoLabelsLength++] = this.path[k]!;
      rec.labelEnd = this.memoLabelsLength;
      this.saveInto(rec.to);
      rec.finalPc = pc;
      rec.stoppedBy = stoppedBy;
      rec.delivery = delivery;
      rec.done = true;
    }
  }

  /** Equal, for a walk that reads and writes the fields in `f`, to the state `s` was saved from. */
  private sameEntry(s: Saved, f: number): boolean {
    const p = this.pkt;
    // The source by identity: an equal address from a rule (SNAT) is not the packet's own,
    // which the flow cache's recording tells apart (flow-reads.ts). The destination by value:
    // the layout's DNAT makes a new address per branch (`ipv4`), two DNAT rules to one
    // endpoint leave equal packets, and only the source's identity is ever consulted.
    return (
      (!(f & SRC) || p.src === s.src) &&
      (!(f & DST) ||
        p.dst === s.dst ||
        (p.dst.value === s.dst.value && p.dst.family === s.dst.family)) &&
      (!(f & SPORT) || p.sport === s.sport) &&
      (!(f & DPORT) || p.dport === s.dport) &&
      (!(f & MARK) || p.mark === s.mark) &&
      (!(f & CONNMARK) || p.connmark === s.connmark) &&
      (!(f & IN_IFACE) || p.inInterface === s.inInterface) &&
      (!(f & OUT_IFACE) || p.outInterface === s.outInterface) &&
      p.ctState === s.ctState &&
      this.dnat === s.dnat &&
      this.snat === s.snat &&
      this.accepted === s.accepted &&
      this.untracked === s.untracked &&
      this.randomPort === s.randomPort
    );
  }

  private replay(e: MemoEntry, f: number, pc: number): void {
    this.restoreRecorded(e.labelStart, e.labelEnd, e.to, f);
    this.leave(pc, e.end);
  }

  /** Where a table's walk ends: on to the next step, or stopped (the built-in chain's policy). */
  private leave(pc: number, end: "ACCEPT" | "DROP" | "REJECT" | "RETURN"): void {
    const rec = this.recording[pc];
    if (rec !== undefined && rec.open) {
      rec.open = false;
      // The first exit of a walk with a split has a share of the probability: not reusable.
      if (this.prob === rec.prob) {
        rec.labelStart = this.memoLabelsLength;
        for (let k = rec.from.pathLength; k < this.pathLength; k++)
          this.memoLabels[this.memoLabelsLength++] = this.path[k]!;
        rec.labelEnd = this.memoLabelsLength;
        this.saveInto(rec.to);
        rec.end = end;
        rec.done = true;
      }
    }
    if (end === "DROP" || end === "REJECT") return this.final(pc, end, "stopped");
    if (end === "RETURN" && this.builtin(pc).policy === "DROP")
      return this.final(pc, "DROP", "stopped");
    this.run(pc + 1);
  }

  private builtin(pc: number): CompiledChain {
    return this.chains[pc]!;
  }

  /**
   * Runs chain number `chain` from rule `start` for the current branch, and everything after
   * it: the chains in `frames` when it returns, then the rest of the plan from `pc`.
   */
  private rules(
    chain: number,
    start: number,
    frames: Frame | undefined,
    depth: number,
    pc: number,
  ): void {
    // Every jump and return of the branch is a call deeper (continuation passing): past this,
    // the breadth-first walk (walk.ts), which loops instead, takes the packet. (A throw ends
    // the whole walk, so the count need not be restored then.)
    if (++this.nesting > MAX_NESTING) throw new TraceError(GAVE_UP);
    const d = this.d!;
    if (depth > MAX_DEPTH) {
      const c = d.chains[chain]!;
      throw new TraceError(`${c.table}/${c.name}: chains nest deeper than ${MAX_DEPTH}`);
    }
    const ctx = this.ctx(pc);
    const pkt = this.pkt;
    const first = d.spans[3 * chain]!;
    const indexed = d.spans[3 * chain + 2]!;
    // The rules to consider are `candidates[k]` for k in [k, count) (undefined: every rule):
    // an IPv4 packet's from the chain's table of numbers, others from its index.
    let candidates: ArrayLike<number> | undefined;
    let k = start;
    let count = d.spans[3 * chain + 1]!;
    if (indexed & TABLED && pkt.dst.family === "IPv4") {
      candidates = d.tables[chain]!.lists;
      const list = candidateList(d.tables[chain]!, pkt.dst.value);
      count = list + 1 + candidates[list]!;
      k = atOrAfter(candidates, list + 1, count, start);
    } else if (indexed !== 0) {
      // Only an indexed chain's object is loaded (its destination index).
      const list = candidateRules(d.chains[chain]!, pkt.dst, pkt.dport);
      if (list !== undefined) {
        candidates = list;
        count = list.length;
        k = firstAtOrAfter(list, start);
      }
    }
    const records = d.records;
    const probabilities = d.probabilities;
    const matchers = d.matchers;
    for (; k < count; k++) {
      const at = first + (candidates === undefined ? k : candidates[k]!);
      if (++this.evaluated > MAX_RULE_VISITS) throw new TraceError(GAVE_UP);
      const r = RECORD * at;
      const word = records[r + OP]!;
      // The IPv4 `-s` and `-d` from the flat layout, then the rest of the condition; a rest
      // that reads no packet field (a statistic share) is a number, not a call.
      if (
        (word & SOURCE) !== 0 &&
        !ipv4SourceHolds(
          pkt,
          ctx,
          records[r + SRC_NET]! >>> 0,
          records[r + SRC_MASK]!,
          (word & SOURCE_NEGATED) !== 0,
        )
      )
        continue;
      if (
        (word & DEST) !== 0 &&
        !ipv4DestinationHolds(
          pkt,
          records[r + DST_NET]! >>> 0,
          records[r + DST_MASK]!,
          (word & DEST_NEGATED) !== 0,
        )
      )
        continue;
      const fixed = records[r + FIXED]!;
      const p = fixed >= 0 ? probabilities[fixed]! : matchers[records[r + MATCHER]!]!(pkt, ctx);
      if (p === 0) continue;
      // A rule without a target still splits a branch (the shares are summed again later,
      // in the reference walk's order, so the sums come out the same to the last bit).
      const acts = (word & TARGET_BITS) !== NO_TARGET;
      if (p < 1) {
        // Past MERGE_FROM branches the reference walk merges equivalent ones; so it walks them.
        if (++this.splits >= MERGE_FROM) throw new TraceError(GAVE_UP);
        const prob = this.prob;
        const saved = (this.splitStates[this.openSplits] ??= blankSaved());
        this.saveInto(saved);
        this.prob = prob * p;
        this.openSplits++;
        if (!acts || this.apply(chain, at - first, frames, depth, pc))
          this.rules(chain, at - first + 1, frames, depth, pc);
        this.openSplits--;
        this.restore(saved);
        this.prob = prob * (1 - p);
        continue;
      }
      if (acts && !this.apply(chain, at - first, frames, depth, pc)) {
        this.nesting--;
        return;
      }
    }
    this.back(frames, pc);
    this.nesting--;
  }

  /** The current chain returned (RETURN, or no rule left). */
  private back(frames: Frame | undefined, pc: number): void {
    if (frames === undefined) return this.leave(pc, "RETURN");
    this.rules(frames.chain, frames.next, frames.parent, frames.depth, pc);
  }

  /**
   * Applies rule `i` of chain number `chain`. True: the branch goes on with the chain's next
   * rule; false: the branch was followed to its end.
   */
  private apply(
    chain: number,
    i: number,
    frames: Frame | undefined,
    depth: number,
    pc: number,
  ): boolean {
    const d = this.d!;
    const at = d.spans[3 * chain]! + i;
    const r = RECORD * at;
    const word = d.records[r + OP]!;
    const op = word & TARGET_BITS;
    this.path[this.pathLength++] = d.labels[at]!;
    // Jumps (most rules a service packet takes) without loading the rule or the chain.
    if (op === JUMP || op === GOTO) {
      const sub = d.records[r + ARG]!;
      if (sub === MISSING) throw missingChain(d.chains[chain]!, i);
      // `-g`: the called chain returns to our caller, as if we had returned.
      if (op === GOTO) {
        this.rules(sub, 0, frames, depth + 1, pc);
        return false;
      }
      if ((d.spans[3 * sub + 2]! & LEAF) !== 0 && this.leaf(sub, chain, i, frames, depth, pc))
        return false;
      const resume = (this.framePool[this.frameTop] ??= {
        chain,
        next: 0,
        depth,
        parent: undefined,
      });
      this.frameTop++;
      resume.chain = chain;
      resume.next = i + 1;
      resume.depth = depth;
      resume.parent = frames;
      this.rules(sub, 0, resume, depth + 1, pc);
      this.frameTop--;
      return false;
    }
    if (op !== APPLY) return true;
    // kube-proxy's DNAT to one endpoint, from the layout's numbers (no load of the target).
    if ((word & FIXED_DNAT) !== 0 && fixedNatHolds(this.pkt, "IPv4")) {
      this.translateDst(ipv4(d.records[r + SRC_NET]!), d.records[r + ARG]!);
      this.leave(pc, "ACCEPT");
      return false;
    }
    const effect = d.appliers[at]!(this.pkt, this.ctx(pc));
    switch (effect.kind) {
      case "verdict":
        if (effect.verdict === "RETURN") this.back(frames, pc);
        else {
          if (effect.verdict === "ACCEPT") this.accepted = true;
          this.leave(pc, effect.verdict);
        }
        return false;
      case "continue":
        return true;
      case "marks":
        if (effect.mark !== undefined) this.pkt.mark = effect.mark;
        if (effect.connmark !== undefined) this.pkt.connmark = effect.connmark;
        return true;
      case "untrack":
        this.untrack();
        return true;
      case "nat":
        this.translate(effect);
        // A NAT target ends the nat table's walk (the kernel accepts once the mapping is set up).
        this.leave(pc, "ACCEPT");
        return false;
    }
    return assertNever(effect);
  }

  /**
   * A jump from rule `i` of chain `chain` to the DNAT leaf `sub` (dense-rules.ts LEAF), walked
   * without a frame or a walk of its own when the packet passes none of its `-s` tests: then
   * only its last rule can match, and the walk is that rule's (its DNAT ends the nat table's
   * walk, or the chain returns to rule i + 1). False, with nothing evaluated or changed: a `-s`
   * test holds (or the packet is not one the DNAT maps as data), and `rules` walks the chain.
   */
  private leaf(
    sub: number,
    chain: number,
    i: number,
    frames: Frame | undefined,
    depth: number,
    pc: number,
  ): boolean {
    const pkt = this.pkt;
    if (depth + 1 > MAX_DEPTH || !fixedNatHolds(pkt, "IPv4")) return false;
    const d = this.d!;
    const records = d.records;
    const first = d.spans[3 * sub]!;
    const last = first + d.spans[3 * sub + 1]! - 1;
    const src = pkt.src;
    if (src.family !== "IPv4") return false;
    const v = src.value;
    for (let at = first; at < last; at++) {
      const r = RECORD * at;
      const negated = (records[r + OP]! & SOURCE_NEGATED) !== 0;
      if (((v & records[r + SRC_MASK]!) >>> 0 === records[r + SRC_NET]! >>> 0) !== negated)
        return false;
    }
    // As `rules` would: each `-s` test evaluated (and told to a recorded trace), none holding.
    const ctx = this.ctx(pc);
    for (let at = first; at < last; at++) {
      if (++this.evaluated > MAX_RULE_VISITS) throw new TraceError(GAVE_UP);
      const r = RECORD * at;
      ipv4SourceHolds(
        pkt,
        ctx,
        records[r + SRC_NET]! >>> 0,
        records[r + SRC_MASK]!,
        (records[r + OP]! & SOURCE_NEGATED) !== 0,
      );
    }
    if (++this.evaluated > MAX_RULE_VISITS) throw new TraceError(GAVE_UP);
    const r = RECORD * last;
    const fixed = records[r + FIXED]!;
    const p = fixed >= 0 ? d.probabilities[fixed]! : d.matchers[records[r + MATCHER]!]!(pkt, ctx);
    if (p === 0) {
      // The leaf returns: on with the jumping chain's next rule.
      this.rules(chain, i + 1, frames, depth, pc);
      return true;
    }
    // A share of the DNAT rule's own: the reference walk takes the packet (walk.ts).
    if (p < 1) throw new TraceError(GAVE_UP);
    this.path[this.pathLength++] = d.labels[last]!;
    this.translateDst(ipv4(records[r + SRC_NET]!), records[r + ARG]!);
    this.leave(pc, "ACCEPT");
    return true;
  }

  private translate(e: Extract<TargetEffect, { kind: "nat" }>): void {
    const pkt = this.pkt;
    if (e.manip === "dst") return this.translateDst(e.ip, e.port);
    pkt.src = e.ip;
    pkt.sport = e.port;
    if (e.randomPort !== undefined) this.randomPort = e.randomPort;
    pkt.ctState = withNatState(pkt.ctState, "SNAT");
    this.snat = true;
  }

  private translateDst(ip: IPAddress, port: number): void {
    const pkt = this.pkt;
    pkt.dst = ip;
    pkt.dport = port;
    pkt.ctState = withNatState(pkt.ctState, "DNAT");
    this.dnat = true;
  }

  private untrack(): void {
    this.untracked = true;
    this.pkt.ctState = UNTRACKED;
  }

  /** The branch's state into `s` (a split's or a memo entry's, reused). */
  private saveInto(s: Saved): void {
    const p = this.pkt;
    s.src = p.src;
    s.sport = p.sport;
    s.dst = p.dst;
    s.dport = p.dport;
    s.inInterface = p.inInterface;
    s.outInterface = p.outInterface;
    s.mark = p.mark;
    s.connmark = p.connmark;
    s.ctState = p.ctState;
    s.dnat = this.dnat;
    s.snat = this.snat;
    s.accepted = this.accepted;
    s.untracked = this.untracked;
    s.randomPort = this.randomPort;
    s.pathLength = this.pathLength;
  }

  private restore(s: Saved): void {
    const p = this.pkt;
    p.src = s.src;
    p.sport = s.sport;
    p.dst = s.dst;
    p.dport = s.dport;
    p.inInterface = s.inInterface;
    p.outInterface = s.outInterface;
    p.mark = s.mark;
    p.connmark = s.connmark;
    p.ctState = s.ctState;
    this.dnat = s.dnat;
    this.snat = s.snat;
    this.accepted = s.accepted;
    this.untracked = s.untracked;
    this.randomPort = s.randomPort;
    this.pathLength = s.pathLength;
  }

  /** A branch ends: into its group (outcomes.ts's grouping), noted with its position. */
  private final(pc: number, stoppedBy: "DROP" | "REJECT" | undefined, delivery: Delivery): void {
    if (this.restSteps.length > 0) this.closeRests(pc, stoppedBy, delivery);
    const prob = this.prob;
    if (prob <= 0) return;
    const pkt = this.pkt;
    const verdict: TraceVerdict =
      stoppedBy ?? (this.dnat ? "DNAT" : this.accepted ? "ACCEPT" : "NONE");
    let g = -1;
    for (let k = 0; k < this.groupCount; k++) {
      const c = this.groups[k]!;
      if (
        c.verdict === verdict &&
        c.snat === this.snat &&
        c.dnat === this.dnat &&
        (!this.dnat || (c.dport === pkt.dport && c.dst.value === pkt.dst.value))
      ) {
        g = k;
        break;
      }
    }
    if (g < 0 || this.groups[g]!.rank > pc) {
      const parts: Mutable<OutcomeParts> = {
        verdict,
        probability: 0,
        delivery,
        stopped: stoppedBy !== undefined,
        dnat: this.dnat,
        snat: this.snat,
        untracked: this.untracked,
        family: pkt.family,
        src: pkt.src,
        sport: pkt.sport,
        dst: pkt.dst,
        dport: pkt.dport,
        mark: pkt.mark,
        randomPort: this.randomPort,
        path: this.path.slice(0, this.pathLength),
        steps: NO_STEPS,
      };
      if (g < 0) {
        g = this.groupCount++;
        const c = (this.groups[g] ??= {
          verdict,
          dnat: false,
          snat: false,
          dst: NO_ADDRESS,
          dport: 0,
          rank: 0,
          parts,
        });
        c.verdict = verdict;
        c.dnat = this.dnat;
        c.snat = this.snat;
        c.dst = pkt.dst;
        c.dport = pkt.dport;
      }
      this.groups[g]!.rank = pc;
      this.groups[g]!.parts = parts;
    }
    const finals = this.finals;
    const n = this.finalsLength;
    finals[n] = pc;
    finals[n + 1] = g;
    finals[n + 2] = prob;
    this.finalsLength = n + 3;
  }
}

/** The first position in `list[from .. to)` (sorted) holding a rule at or after `start`. */
function atOrAfter(list: ArrayLike<number>, from: number, to: number, start: number): number {
  if (start === 0) return from;
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * An IPv4 address made from a number, young (the packet's destination after a FIXED_DNAT: its
 * value compares, never its identity; see `sameEntry`).
 */
function ipv4(value: number): IPAddress {
  return { family: "IPv4", value: value >>> 0 };
}

/** Distinct destinations whose routing a packet's walk remembers (`Walker.routeIndex`). */
const ROUTE_MEMO = 16;
/** A routing entry's MASQUERADE address not asked for yet. */
const UNASKED: IPAddress = { family: "IPv4", value: 0 };

/** Distinct entry states remembered per table (beyond: walked, not remembered). */
const MEMO_LIMIT = 64;

/**
 * A table's walk from a state, and what it did: the rules it took, the state it left with, how
 * it ended. Kept in the walker and filled again for each packet (nothing read across packets).
 */
interface MemoEntry {
  readonly from: Saved;
  /** False: the walk split (or is still running), so it is not replayed. */
  done: boolean;
  /** While recording: the branch's probability at entry, and whether it has not left yet. */
  prob: number;
  open: boolean;
  /** When done: the rules taken (`memoLabels`), the state at the exit, how it ended. */
  labelStart: number;
  labelEnd: number;
  readonly to: Saved;
  end: "ACCEPT" | "DROP" | "REJECT" | "RETURN";
}

/** The rest of the plan from a routing step, walked from a state (see `Walker.rest`). */
interface RestEntry {
  readonly from: Saved;
  /** The route the branch took, and MASQUERADE's address for it (when the rest reads it). */
  choice: RouteChoice;
  masq: IPAddress | undefined;
  done: boolean;
  prob: number;
  open: boolean;
  labelStart: number;
  labelEnd: number;
  readonly to: Saved;
  /** How the branch ended (`final`'s arguments). */
  finalPc: number;
  stoppedBy: "DROP" | "REJECT" | undefined;
  delivery: Delivery;
}

const NO_ROUTE: RouteChoice = { local: false, outInterface: "" };

function blankRest(): RestEntry {
  return {
    from: blankSaved(),
    choice: NO_ROUTE,
    masq: undefined,
    done: false,
    prob: 0,
    open: false,
    labelStart: 0,
    labelEnd: 0,
    to: blankSaved(),
    finalPc: 0,
    stoppedBy: undefined,
    delivery: "forward",
  };
}

function blankEntry(): MemoEntry {
  return {
    from: blankSaved(),
    done: false,
    prob: 0,
    open: false,
    labelStart: 0,
    labelEnd: 0,
    to: blankSaved(),
    end: "RETURN",
  };
}

/** A branch's state, to restore or compare (mutable: a split's is reused, `saveInto`). */
interface Saved {
  src: IPAddress;
  sport: number;
  dst: IPAddress;
  dport: number;
  inInterface: string;
  outInterface: string;
  mark: number;
  connmark: number;
  ctState: Packet["ctState"];
  dnat: boolean;
  snat: boolean;
  accepted: boolean;
  untracked: boolean;
  randomPort: PortRange | undefined;
  pathLength: number;
}

const NO_ADDRESS: IPAddress = { family: "IPv4", value: 0 };

/** A Saved to fill (`saveInto`). */
function blankSaved(): Saved {
  return {
    src: NO_ADDRESS,
    sport: 0,
    dst: NO_ADDRESS,
    dport: 0,
    inInterface: "",
    outInterface: "",
    mark: 0,
    connmark: 0,
    ctState: UNTRACKED,
    dnat: false,
    snat: false,
    accepted: false,
    untracked: false,
    randomPort: undefined,
    pathLength: 0,
  };
}

function missingChain(chain: CompiledChain, i: number): TraceError {
  const t = chain.rules[i]!.target as Extract<Target, { kind: "jump" }>;
  return new TraceError(`${chain.table}/${chain.name}: jump to missing chain ${t.chain}`);
}

/**
 * Whether the fast walk can take a rule set: compiled rules (indexed mode). (A node with IPVS
 * is the caller's check; a walk that consulted a `recent` list is given to the reference walk,
 * which traces the repeat too: tracer.ts.)
 */
export function fastWalkApplies(compiled: CompiledRuleSet): boolean {
  return compiled.indexed;
}

/**
 * The first packet of a new connection, walked depth first: its outcomes, merged and sorted
 * as `mergeFinals` gives them, and what the walk cost (conditions evaluated; Infinity when it
 * split).
 */
export function fastWalk(
  r: HookRunner,
  compiled: CompiledRuleSet | undefined,
  origin: "remote" | "local",
  start: Packet,
  printed: PrintedPacket,
): { readonly built: BuiltOutcome[]; readonly cost: number } {
  const w = walkerFor(compiled, origin === "remote" ? REMOTE : LOCAL, start);
  w.reset(r, start);
  w.busy = true;
  try {
    w.run(0);
    return outcomesOf(w, printed);
  } finally {
    w.busy = false;
  }
}

/** The walk's finals merged into outcomes (see `fastWalk`). */
function outcomesOf(
  w: Walker,
  printed: PrintedPacket,
): { readonly built: BuiltOutcome[]; readonly cost: number } {
  const finals = w.finals;
  const count = w.finalsLength;
  const groups = w.groups;
  const groupCount = w.groupCount;
  // Probabilities summed per group in the order the breadth-first walk finds the finals:
  // by plan position, then depth-first order (a stable sort keeps the latter).
  let sorted = true;
  for (let k = 3; k < count; k += 3) if (finals[k]! < finals[k - 3]!) sorted = false;
  const sums = w.sums;
  for (let g = 0; g < groupCount; g++) sums[g] = -1;
  // Usually every branch ends at the same step: already in order.
  if (sorted) for (let k = 0; k < count; k += 3) addFinal(sums, finals, k);
  else {
    const order: number[] = [];
    for (let k = 0; k < count; k += 3) order.push(k);
    order.sort((a, b) => finals[a]! - finals[b]!);
    for (const k of order) addFinal(sums, finals, k);
  }
  const printer = w.printer;
  printer.reset();
  // The packet as parsePacketSpec printed it: its addresses as formatIP prints them.
  const tuple: OriginalTuple = {
    src: printed.src,
    sport: printed.sport,
    dst: printed.dst,
    dport: printed.dport,
  };
  const proto = printed.proto;
  const built: BuiltOutcome[] = [];
  for (let k = 0; k < groupCount; k++) {
    const parts = groups[k]!.parts;
    parts.probability = sums[k]!;
    built.push(outcomeOf(parts, proto, tuple, printer));
  }
  // A split counts as expensive whatever the count: every share is walked to its end.
  return { built: sortOutcomes(built), cost: count > 3 ? Infinity : w.evaluated };
}

/** Final `k` (of the flattened triples) into its group's sum. */
function addFinal(sums: number[], finals: readonly number[], k: number): void {
  const g = finals[k + 1]!;
  const p = finals[k + 2]!;
  sums[g] = sums[g]! < 0 ? p : sums[g]! + p;
}

/** The walker kept per rule set, one per plan (remote, local). */
const walkers = new WeakMap<object, [Walker | undefined, Walker | undefined]>();
/** The key for a family without a rule set. */
const NO_RULES = {};

function walkerFor(compiled: CompiledRuleSet | undefined, plan: Plan, start: Packet): Walker {
  const key = compiled ?? NO_RULES;
  let pair = walkers.get(key);
  if (pair === undefined) walkers.set(key, (pair = [undefined, undefined]));
  const i = plan === REMOTE ? 0 : 1;
  const kept = pair[i];
  if (kept !== undefined && !kept.busy) return kept;
  const w = new Walker(compiled, plan, start);
  if (kept === undefined) pair[i] = w;
  return w;
}
