/**
 * Walking one table's chains for one packet: rules in order, `-j` into a user chain and back,
 * `-g` (goto: the called chain's RETURN goes back to *our* caller), RETURN, terminating
 * verdicts, and non-terminating targets (MARK, CONNMARK, LOG, NFLOG, NOTRACK/CT) that change
 * the packet and go on. A rule whose conditions hold with probability p (statistic random)
 * splits the branch: p takes the target, 1 - p goes on with the next rule. NAT targets are
 * terminating for the nat table (the kernel returns NF_ACCEPT after the mapping is set up).
 *
 * All branches of a chain are walked together, rule by rule (walkChain), so that the walk is a
 * loop whatever the length of a run of jumps and returns, and so that branches which can no
 * longer differ can be merged when there are many (MERGE_FROM); a budget bounds the rest
 * (docs/trace.md, "Budget").
 */
import { formatIP, joinHostPort, type IPAddress, type PortRange } from "../../net/index.js";
import { assertNever } from "../../util/assert-never.js";
import type { MatchOutcome, TableName } from "../model.js";
import { applyTarget, evaluateMatch } from "../registry.js";
import type { Target } from "../targets/index.js";
import { UNTRACKED, withNatState } from "./target-effects.js";
import {
  candidateRules,
  resolveJump,
  type CompiledChain,
  type CompiledTable,
} from "./chain-index.js";
import type { NodeDataplane } from "./dataplane.js";
import type { RuleContext } from "./hooks.js";
import { recentUpdatesOf } from "./recent.js";
import type { TraceStep } from "./result.js";
import { ruleHolds, type MatchEvaluator } from "./rule-match.js";
import type { RecentUpdate, WalkState } from "./walk-state.js";
import { ALL } from "./footprint.js";
import {
  packetTranslated,
  sameBranchState,
  sameIp,
  packetWith,
  patch,
  translated,
  withPacket,
  withPath,
  withProb,
} from "./walk-state.js";
import { OperationalError } from "../../issue/operational-error.js";

export type ChainEnd = "ACCEPT" | "DROP" | "REJECT" | "RETURN" | "FALLTHROUGH";

export interface ChainExit {
  readonly state: WalkState;
  readonly end: ChainEnd;
}

export interface WalkEnv {
  readonly dp: NodeDataplane;
  readonly evaluate: MatchEvaluator;
  readonly explain: boolean;
  readonly table: CompiledTable;
  readonly ctx: RuleContext;
}

/** A trace that cannot finish (nesting, a jump to no chain, the branch budget): `trace-limit`. */
export class TraceError extends OperationalError {
  constructor(message: string) {
    super("trace-limit", message);
    this.name = "TraceError";
  }
}

/** Chains nested deeper than this are refused (the kernel refuses loops; we bound nesting). */
const MAX_DEPTH = 256;
/**
 * Branches of one chain walk held apart, at the same rule, before equivalent ones are merged.
 * Below it, every branch is walked on its own and the outcomes are bit for bit those of the
 * depth-first walk (fast-walk.ts gives up at this many splits, so both agree).
 */
export const MERGE_FROM = 1024;
/** Distinct branches one chain walk may hold at a rule after merging (budget, docs/trace.md). */
export const MAX_BRANCHES = 4096;
/** Rule visits one table walk of one branch may make (budget, docs/trace.md). */
export const MAX_RULE_VISITS = 500_000;
const NO_UPDATES: readonly RecentUpdate[] = [];

function probabilityOf(o: MatchOutcome): number {
  return o.kind === "match" ? 1 : o.kind === "no-match" ? 0 : o.probability;
}

/** Adds an explanation step; callers check `env.explain` first so nothing is built otherwise. */
export function step(env: WalkEnv, state: WalkState, s: TraceStep): WalkState {
  if (!env.explain) return state;
  return patch(state, { steps: { head: s, tail: state.steps } });
}

function hostPort(ip: IPAddress, port: number): string {
  return joinHostPort(formatIP(ip), port);
}

function targetName(t: Target): string {
  return t.kind === "jump" ? (t.goto ? `goto ${t.chain}` : t.chain) : t.kind;
}

/**
 * A branch's place in depth-first order: the choices at the splits it went through (0 taken,
 * 1 not taken), newest first. Branches are walked rule by rule together (so that equivalent
 * ones can be merged), and the exits are put back into the order a depth-first walk finds
 * them in, which the outcomes' sums and printed paths depend on.
 */
interface Key {
  readonly parent: Key | undefined;
  readonly bit: 0 | 1;
  readonly depth: number;
}

function child(k: Key | undefined, bit: 0 | 1): Key {
  return { parent: k, bit, depth: k === undefined ? 1 : k.depth + 1 };
}

/** Depth-first order of two keys (neither a prefix of the other, as exits' keys never are). */
function compareKeys(a: Key | undefined, b: Key | undefined): number {
  if (a === b) return 0;
  let x = a;
  let y = b;
  const dx = x?.depth ?? 0;
  const dy = y?.depth ?? 0;
  for (let d = dx; d > dy; d--) x = x!.parent;
  for (let d = dy; d > dx; d--) y = y!.parent;
  if (x === y) return dx - dy;
  while (x!.parent !== y!.parent) {
    x = x!.parent;
    y = y!.parent;
  }
  return x!.bit - y!.bit;
}

interface Branch {
  readonly state: WalkState;
  readonly key: Key | undefined;
}

interface KeyedExit extends ChainExit {
  readonly key: Key | undefined;
}

/** What one table walk has spent, and what to name when it runs out. */
class Budget {
  visits = 0;
  /** Rules that split a branch (statistic), first seen first. */
  splitters: Set<string> | undefined = undefined;
  /** The jumps the walk is inside of (outermost first). */
  readonly jumps: string[] = [];

  constructor(readonly start: CompiledChain) {}

  exhausted(what: string): TraceError {
    const split = [...(this.splitters ?? [])];
    const named = (list: readonly string[]) =>
      list.length <= 10
        ? list.join(", ")
        : `${list.slice(0, 10).join(", ")} and ${list.length - 10} more`;
    const parts = [`${this.start.table}/${this.start.name}: ${what} (docs/trace.md, "Budget")`];
    if (split.length > 0) parts.push(`rules that branch: ${named(split)}`);
    if (this.jumps.length > 0) parts.push(`inside the jumps ${named(this.jumps)}`);
    return new TraceError(parts.join("; "));
  }
}

/** Runs a chain from its first rule: its exits in depth-first order. */
export function runChain(env: WalkEnv, chain: CompiledChain, state: WalkState): ChainExit[] {
  const exits = walkChain(env, chain, [{ state, key: undefined }], 0, new Budget(chain));
  for (let k = 1; k < exits.length; k++)
    if (compareKeys(exits[k - 1]!.key, exits[k]!.key) > 0) {
      exits.sort((a, b) => compareKeys(a.key, b.key));
      break;
    }
  return exits;
}

function lookupChain(env: WalkEnv, from: CompiledChain, i: number): CompiledChain {
  const c = resolveJump(env.table, from, i);
  if (c === undefined) {
    const t = from.rules[i]!.target as Extract<Target, { kind: "jump" }>;
    throw new TraceError(`${from.table}/${from.name}: jump to missing chain ${t.chain}`);
  }
  return c;
}

/** Where one rule sends the branches it applies to. */
class RuleSink {
  /** Branches going on at the next rule. */
  next: Branch[] = [];
  /** Branches that take the rule's jump or goto. */
  jumpers: Branch[] | undefined = undefined;
  constructor(readonly out: KeyedExit[]) {}
}

/**
 * Walks `batch` (branches entering `chain` together) rule by rule: each rule is applied to every
 * branch before the next rule, a jump takes all its branches into the called chain at once, and
 * the branches that come back go on together. Nesting is the only recursion (bounded by
 * MAX_DEPTH): a long run of jumps and returns is a loop, not a deeper stack.
 */
function walkChain(
  env: WalkEnv,
  chain: CompiledChain,
  batch: readonly Branch[],
  depth: number,
  budget: Budget,
): KeyedExit[] {
  if (depth > MAX_DEPTH)
    throw new TraceError(`${chain.table}/${chain.name}: chains nest deeper than ${MAX_DEPTH}`);
  const out: KeyedExit[] = [];
  const rules = chain.rules;
  // Compiled conditions decide as ruleHolds does with the registry's evaluator (rule-compile.ts).
  const matchers = env.evaluate === evaluateMatch ? chain.matchers : undefined;
  const first = batch[0]!.state.pkt;
  let candidates = sameDestination(batch)
    ? candidateRules(chain, first.dst, first.dport)
    : undefined;
  // The branches at the current rule, and the next rule's (two arrays used in turn).
  let active: Branch[] = batch.slice();
  let spare: Branch[] = [];
  const sink = new RuleSink(out);
  let k = 0;
  for (;;) {
    const i = candidates === undefined ? k : (candidates[k] ?? rules.length);
    if (i >= rules.length || active.length === 0) break;
    let changed = false;
    for (let j = 0; j < active.length; j++) {
      const b = active[j]!;
      if (++budget.visits > MAX_RULE_VISITS)
        throw budget.exhausted(`the walk visits more than ${MAX_RULE_VISITS} rules`);
      const state = b.state;
      const p =
        matchers !== undefined
          ? matchers[i]!(state.pkt, env.ctx)
          : probabilityOf(ruleHolds(rules[i]!, state.pkt, env.ctx, env.evaluate));
      if (p === 0) {
        if (changed) spare.push(b);
        continue;
      }
      if (!changed) {
        changed = true;
        spare.length = 0;
        for (let q = 0; q < j; q++) spare.push(active[q]!);
        sink.next = spare;
        sink.jumpers = undefined;
      }
      if (p < 1) {
        (budget.splitters ??= new Set()).add(chain.labels[i]!);
        const prob = state.prob;
        applyRule(
          env,
          chain,
          i,
          { state, prob: prob * p, probability: p, key: child(b.key, 0) },
          sink,
        );
        let notTaken = withProb(state, prob * (1 - p));
        if (env.explain)
          notTaken = step(env, notTaken, {
            kind: "branch-not-taken",
            table: chain.table,
            chain: chain.name,
            index: i + 1,
            probability: 1 - p,
          });
        sink.next.push({ state: notTaken, key: child(b.key, 1) });
        continue;
      }
      applyRule(
        env,
        chain,
        i,
        { state, prob: state.prob, probability: undefined, key: b.key },
        sink,
      );
    }
    k++;
    if (!changed) continue;
    if (sink.jumpers !== undefined) comeBack(env, chain, i, sink, depth, budget);
    let next = sink.next;
    if (next.length > MERGE_FROM) next = merged(next);
    if (next.length > MAX_BRANCHES)
      throw budget.exhausted(
        `${chain.table}/${chain.name}#${i + 1}: the walk holds more than ${MAX_BRANCHES} distinct branches`,
      );
    // A target that goes on and changes the destination (none does today) would need
    // another candidate list: walk the rest of the chain without the index.
    if (candidates !== undefined && !sameDestination(next, first)) {
      candidates = undefined;
      k = i + 1;
    }
    spare = active;
    active = next;
  }
  for (const b of active) out.push({ state: b.state, end: "FALLTHROUGH", key: b.key });
  return out;
}

/** Walks rule `i`'s called chain with the branches that jump there; the ones that come back go on. */
function comeBack(
  env: WalkEnv,
  chain: CompiledChain,
  i: number,
  sink: RuleSink,
  depth: number,
  budget: Budget,
): void {
  const sub = lookupChain(env, chain, i);
  const goto = chain.kinds[i] === "goto";
  budget.jumps.push(chain.labels[i]!);
  const exits = walkChain(env, sub, sink.jumpers!, depth + 1, budget);
  budget.jumps.pop();
  for (const e of exits) {
    if (e.end !== "RETURN" && e.end !== "FALLTHROUGH") sink.out.push(e);
    // `-g`: the called chain returns to our caller, as if we had returned.
    else if (goto) sink.out.push({ state: e.state, end: "RETURN", key: e.key });
    else sink.next.push({ state: e.state, key: e.key });
  }
}

/** Whether every branch has the destination of `as` (the index's key). */
function sameDestination(batch: readonly Branch[], as = batch[0]!.state.pkt): boolean {
  for (const b of batch) {
    const p = b.state.pkt;
    if (p.dport !== as.dport || (p.dst !== as.dst && !sameIp(p.dst, as.dst))) return false;
  }
  return true;
}

/**
 * Branches that can no longer differ merged into one: equal packets, flags and `recent`
 * updates (sameBranchState), so every later rule treats them alike. The merged branch keeps
 * the first one's path and explanation (in depth-first order: the one an outcome is printed
 * from) and the sum of their probabilities.
 */
function merged(list: readonly Branch[]): Branch[] {
  const kept: Branch[] = [];
  const buckets = new Map<string, number[]>();
  for (const b of list) {
    const p = b.state.pkt;
    const h = `${p.mark} ${p.connmark} ${p.src.value} ${p.sport} ${p.dst.value} ${p.dport}`;
    const bucket = buckets.get(h);
    let into = -1;
    if (bucket !== undefined)
      for (const q of bucket) {
        const c = kept[q]!;
        if (
          c.state.recentUpdates === b.state.recentUpdates &&
          sameBranchState(c.state, b.state, ALL)
        ) {
          into = q;
          break;
        }
      }
    if (into < 0) {
      if (bucket === undefined) buckets.set(h, [kept.length]);
      else bucket.push(kept.length);
      kept.push(b);
      continue;
    }
    const c = kept[into]!;
    const [lo, hi] = compareKeys(c.key, b.key) <= 0 ? [c, b] : [b, c];
    kept[into] = { state: withProb(lo.state, lo.state.prob + hi.state.prob), key: lo.key };
  }
  return kept;
}

/** A branch taking a rule: its state, its probability after the rule, the rule's own share. */
interface Taking {
  readonly state: WalkState;
  readonly prob: number;
  /** The statistic share of a split (the explanation shows it); undefined: no split. */
  readonly probability: number | undefined;
  readonly key: Key | undefined;
}

/**
 * Applies matched rule `i`'s target to the branch `taking` (probability `prob`: its own, or the
 * taken share of a split): the branch goes on at the next rule (`sink.next`), into the called
 * chain (`sink.jumpers`), or ends here (`sink.out`).
 */
function applyRule(
  env: WalkEnv,
  chain: CompiledChain,
  i: number,
  taking: Taking,
  sink: RuleSink,
): void {
  const { state: state0, prob, probability, key } = taking;
  const rule = chain.rules[i]!;
  let state = state0;
  const updates = chain.recentSets[i] === true ? recentUpdatesOf(rule, state.pkt) : NO_UPDATES;
  if (updates.length > 0) {
    let list = state.recentUpdates;
    for (const u of updates) list = { head: u, tail: list };
    state = patch(state, { recentUpdates: list });
  }
  const kind = chain.kinds[i];
  if (kind === undefined) {
    sink.next.push({ state: prob === state.prob ? state : withProb(state, prob), key });
    return;
  }
  state = withPath(state, chain.labels[i]!, prob);
  const target = rule.target!;
  if (env.explain)
    state = step(env, state, {
      kind: "rule",
      table: chain.table,
      chain: chain.name,
      index: i + 1,
      target: targetName(target),
      ...(probability !== undefined ? { probability } : {}),
    });
  if (target.kind === "jump") {
    (sink.jumpers ??= []).push({ state, key });
    return;
  }
  const effect = applyTarget(target, state.pkt, env.ctx);
  switch (effect.kind) {
    case "verdict":
      if (effect.verdict === "ACCEPT")
        return end(sink, key, patch(state, { accepted: true }), "ACCEPT");
      return end(sink, key, state, effect.verdict);
    case "continue":
      return goOn(sink, key, state);
    case "marks": {
      const from = state.pkt;
      const mark = effect.mark ?? from.mark;
      const connmark = effect.connmark ?? from.connmark;
      if (mark === from.mark && connmark === from.connmark) return goOn(sink, key, state);
      state = withPacket(state, packetWith(from, { mark, connmark }));
      if (env.explain && mark !== from.mark)
        state = step(env, state, { kind: "mark", from: hex(from.mark), to: hex(mark) });
      return goOn(sink, key, state);
    }
    case "untrack":
      return goOn(sink, key, untrack(state));
    case "nat":
      // A NAT target ends the nat table's walk (the kernel accepts once the mapping is set up).
      return end(
        sink,
        key,
        effect.manip === "dst"
          ? dnat(env, state, effect.ip, effect.port)
          : snat(env, state, effect.ip, effect.port, effect.randomPort),
        "ACCEPT",
      );
  }
  return assertNever(effect);
}

function goOn(sink: RuleSink, key: Key | undefined, state: WalkState): void {
  sink.next.push({ state, key });
}

function end(sink: RuleSink, key: Key | undefined, state: WalkState, e: ChainEnd): void {
  sink.out.push({ state, end: e, key });
}

function untrack(state: WalkState): WalkState {
  return patch(state, { untracked: true, pkt: packetWith(state.pkt, { ctState: UNTRACKED }) });
}

function dnat(env: WalkEnv, state: WalkState, ip: IPAddress, port: number): WalkState {
  // A DNAT port drawn at random (--random with a port range) is not reported (docs/trace.md).
  const next = translated(
    state,
    packetTranslated(state.pkt, "dst", ip, port, withNatState(state.pkt.ctState, "DNAT")),
    "dnat",
    undefined,
  );
  if (!env.explain) return next;
  return step(env, next, {
    kind: "dnat",
    from: hostPort(state.pkt.dst, state.pkt.dport),
    to: hostPort(ip, port),
  });
}

function snat(
  env: WalkEnv,
  state: WalkState,
  ip: IPAddress,
  port: number,
  randomPort: PortRange | undefined,
): WalkState {
  const next: WalkState = translated(
    state,
    packetTranslated(state.pkt, "src", ip, port, withNatState(state.pkt.ctState, "SNAT")),
    "snat",
    randomPort,
  );
  if (!env.explain) return next;
  return step(env, next, {
    kind: "snat",
    from: hostPort(state.pkt.src, state.pkt.sport),
    to: hostPort(ip, port),
  });
}

export function hex(n: number): string {
  return `0x${n.toString(16)}`;
}

export type { TableName };
