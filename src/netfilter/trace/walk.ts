/**
 * Walking one table's chains for one packet: rules in order, `-j` into a user chain and back,
 * `-g` (goto: the called chain's RETURN goes back to *our* caller), RETURN, terminating
 * verdicts, and non-terminating targets (MARK, CONNMARK, LOG, NFLOG, NOTRACK/CT) that change
 * the packet and go on. A rule whose conditions hold with probability p (statistic random)
 * splits the branch: p takes the target, 1 - p goes on with the next rule. NAT targets are
 * terminating for the nat table (the kernel returns NF_ACCEPT after the mapping is set up).
 */
import { formatIP, joinHostPort, type IPAddress, type PortRange } from "../../net/index.js";
import { assertNever } from "../../util/assert-never.js";
import type { EvalContext, MatchOutcome, Rule, TableName } from "../model.js";
import { evaluateMatch } from "../registry.js";
import type { Target } from "../targets/index.js";
import { connmarkAfter, markAfter, natMapping, UNTRACKED, withNatState } from "./target-effects.js";
import {
  candidateRules,
  firstAtOrAfter,
  type CompiledChain,
  type CompiledTable,
} from "./chain-index.js";
import type { NodeDataplane } from "./dataplane.js";
import { recentUpdatesOf } from "./recent.js";
import type { TraceStep } from "./result.js";
import { ruleHolds, type MatchEvaluator } from "./rule-match.js";
import type { RecentUpdate, WalkState } from "./walk-state.js";
import {
  packetTranslated,
  packetWith,
  patch,
  translated,
  withPacket,
  withPath,
  withProb,
} from "./walk-state.js";

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
  readonly ctx: EvalContext;
}

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceError";
  }
}

const MAX_DEPTH = 256;
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

/** Runs a chain from its first rule. */
export function runChain(
  env: WalkEnv,
  chain: CompiledChain,
  state: WalkState,
  depth = 0,
): ChainExit[] {
  const out: ChainExit[] = [];
  runChainInto(env, chain, state, depth, out);
  return out;
}

/** runChain appending to `out`. */
function runChainInto(
  env: WalkEnv,
  chain: CompiledChain,
  state: WalkState,
  depth: number,
  out: ChainExit[],
): void {
  if (depth > MAX_DEPTH)
    throw new TraceError(`${chain.table}/${chain.name}: chains nest deeper than ${MAX_DEPTH}`);
  runFrom(env, chain, 0, state, depth, out);
}

function lookupChain(env: WalkEnv, from: CompiledChain, i: number): CompiledChain {
  const cached = from.jumpTargets[i];
  if (cached !== undefined) return cached;
  const t = from.rules[i]!.target as Extract<Target, { kind: "jump" }>;
  const name = t.chain;
  const c = env.table.chains.get(name);
  if (c === undefined)
    throw new TraceError(`${from.table}/${from.name}: jump to missing chain ${name}`);
  from.jumpTargets[i] = c;
  return c;
}

function runFrom(
  env: WalkEnv,
  chain: CompiledChain,
  start: number,
  initial: WalkState,
  depth: number,
  out: ChainExit[],
): void {
  let state = initial;
  // The branch's probability, kept apart from `state` (whose own `prob` may be stale): a run
  // of statistic rules then makes no state for each not-taken share; applyRule and the
  // fall-through put it into the states they make.
  let prob = state.prob;
  const candidates = candidateRules(chain, state.pkt.dst, state.pkt.dport);
  const rules = chain.rules;
  // Compiled conditions decide as ruleHolds does with the registry's evaluator (rule-compile.ts).
  const matchers = env.evaluate === evaluateMatch ? chain.matchers : undefined;
  const count = candidates === undefined ? rules.length : candidates.length;
  let k = candidates === undefined ? start : firstAtOrAfter(candidates, start);
  for (; k < count; k++) {
    const i = candidates === undefined ? k : candidates[k]!;
    const p =
      matchers !== undefined
        ? matchers[i]!(state.pkt, env.ctx)
        : probabilityOf(ruleHolds(rules[i]!, state.pkt, env.ctx, env.evaluate));
    if (p === 0) continue;
    if (p < 1) {
      // The taken branch's probability goes into the first state applyRule makes anyway.
      const taken = state;
      const takenProb = prob * p;
      prob = prob * (1 - p);
      if (env.explain)
        state = step(env, state, {
          kind: "branch-not-taken",
          table: chain.table,
          chain: chain.name,
          index: i + 1,
          probability: 1 - p,
        });
      const stop = applyRule(env, chain, i, rules[i]!, taken, takenProb, p, depth, out);
      if (stop === "continue") continue;
      runFrom(env, chain, i + 1, stop, depth, out);
      continue;
    }
    const next = applyRule(env, chain, i, rules[i]!, state, prob, undefined, depth, out);
    if (next === "continue") return;
    state = next;
    prob = next.prob;
    // A changed destination (only via targets that go on, which none do today) would need a
    // new candidate list; keep the walk exact if that ever happens.
    if (
      (next.pkt.dst !== initial.pkt.dst || next.pkt.dport !== initial.pkt.dport) &&
      chain.index !== undefined
    ) {
      runFrom(env, chain, i + 1, next, depth, out);
      return;
    }
  }
  out.push({ state: prob === state.prob ? state : withProb(state, prob), end: "FALLTHROUGH" });
}

/**
 * Applies a matched rule's target to `state0` with probability `prob` (its own, or the taken
 * share of a split). Returns the state to go on with at the next rule, or "continue" when the
 * branch ended here (its exits are in `out`).
 */
function applyRule(
  env: WalkEnv,
  chain: CompiledChain,
  i: number,
  rule: Rule,
  state0: WalkState,
  prob: number,
  probability: number | undefined,
  depth: number,
  out: ChainExit[],
): WalkState | "continue" {
  let state = state0;
  const updates = chain.recentSets[i] === true ? recentUpdatesOf(rule, state.pkt) : NO_UPDATES;
  if (updates.length > 0) {
    let list = state.recentUpdates;
    for (const u of updates) list = { head: u, tail: list };
    state = patch(state, { recentUpdates: list });
  }
  const kind = chain.kinds[i];
  if (kind === undefined) return prob === state.prob ? state : withProb(state, prob);
  state = withPath(state, chain.labels[i]!, prob);
  if (!env.explain && (kind === "jump" || kind === "goto"))
    return jump(env, chain, i, kind === "goto", state, depth, out);
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
  switch (target.kind) {
    case "ACCEPT":
      out.push({ state: patch(state, { accepted: true }), end: "ACCEPT" });
      return "continue";
    case "DROP":
    case "REJECT":
      out.push({ state, end: target.kind });
      return "continue";
    case "RETURN":
      out.push({ state, end: "RETURN" });
      return "continue";
    case "jump":
      return jump(env, chain, i, target.goto, state, depth, out);
    case "DNAT": {
      // A DNAT port drawn at random (--random with a port range) is not reported (docs/trace.md).
      const { ip, port } = natMapping(env.dp, target, state.pkt, env.ctx.flow);
      const before = state.pkt;
      state = translated(
        state,
        packetTranslated(state.pkt, "dst", ip, port, withNatState(state.pkt.ctState, "DNAT")),
        "dnat",
        undefined,
      );
      if (env.explain)
        state = step(env, state, {
          kind: "dnat",
          from: hostPort(before.dst, before.dport),
          to: hostPort(ip, port),
        });
      out.push({ state, end: "ACCEPT" });
      return "continue";
    }
    case "SNAT":
    case "MASQUERADE": {
      const m = natMapping(env.dp, target, state.pkt, env.ctx.flow);
      out.push({ state: snat(env, state, m.ip, m.port, m.randomPort), end: "ACCEPT" });
      return "continue";
    }
    case "MARK": {
      const mark = markAfter(state.pkt.mark, target);
      if (mark === state.pkt.mark) return state;
      const from = state.pkt.mark;
      state = withPacket(state, packetWith(state.pkt, { mark }));
      return env.explain
        ? step(env, state, { kind: "mark", from: hex(from), to: hex(mark) })
        : state;
    }
    case "CONNMARK":
      return withPacket(
        state,
        packetWith(state.pkt, connmarkAfter(state.pkt.mark, state.pkt.connmark, target)),
      );
    case "LOG":
    case "NFLOG":
      return state;
    case "NOTRACK":
      return untrack(state);
    case "CT":
      return target.notrack ? untrack(state) : state;
    default:
      return assertNever(target);
  }
}

/** `-j` / `-g` (goto) to rule `i`'s chain. */
function jump(
  env: WalkEnv,
  chain: CompiledChain,
  i: number,
  goto: boolean,
  state: WalkState,
  depth: number,
  out: ChainExit[],
): "continue" {
  const sub = lookupChain(env, chain, i);
  // The sub-chain's exits go straight into `out`; only when one of them comes back
  // (RETURN, FALLTHROUGH) are they taken out again and handled in order, as runChain's.
  const mark = out.length;
  runChainInto(env, sub, state, depth + 1, out);
  let back = false;
  for (let k = mark; k < out.length; k++) {
    const end = out[k]!.end;
    if (end === "RETURN" || end === "FALLTHROUGH") {
      back = true;
      break;
    }
  }
  if (!back) return "continue";
  for (const exit of out.splice(mark)) {
    if (exit.end === "RETURN" || exit.end === "FALLTHROUGH") {
      if (goto) out.push({ state: exit.state, end: "RETURN" });
      else runFrom(env, chain, i + 1, exit.state, depth, out);
    } else out.push(exit);
  }
  return "continue";
}

function untrack(state: WalkState): WalkState {
  return patch(state, { untracked: true, pkt: packetWith(state.pkt, { ctState: UNTRACKED }) });
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
