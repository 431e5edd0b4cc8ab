/**
 * The netfilter hooks in kernel order and what each does to a branch of the trace.
 *
 * A packet arriving from outside: PREROUTING (raw, mangle, nat), the routing decision by local
 * addresses, then either INPUT (mangle, filter, security, nat) and local delivery (or IPVS at
 * LOCAL_IN), or FORWARD (mangle, filter, security) and POSTROUTING (mangle, nat). A locally
 * generated packet: routing, OUTPUT (raw, mangle, nat, filter, security), re-routing after a
 * DNAT, POSTROUTING (mangle, nat), and, for a local destination, the loop through `lo`
 * (PREROUTING raw and mangle, INPUT mangle, filter, security; nat is done by then).
 * The nat table is consulted only for the first packet of a connection (conntrack NEW, not
 * untracked); later packets get the recorded translation at the same places instead.
 */
import { formatIP, joinHostPort, type IPAddress } from "../../net/index.js";
import type {
  AddrType,
  EvalContext,
  FlowReads,
  Hook,
  IpsetKey,
  IpvsMatchView,
  Packet,
  TableName,
} from "../model.js";
import type { TargetEnv } from "../targets/extension.js";
import { addrTypeOf, masqueradeSource, route } from "./addressing.js";
import type { CompiledChain, CompiledRuleSet } from "./chain-index.js";
import {
  ALL,
  CONNMARK,
  DPORT,
  DST,
  IN_IFACE,
  MARK,
  OUT_IFACE,
  SPORT,
  SRC,
  footprint,
} from "./footprint.js";
import type { NodeDataplane } from "./dataplane.js";
import { runNftStage, stagesFor } from "./nft-stage.js";
import type { Delivery, TraceStep } from "./result.js";
import type { MatchEvaluator } from "./rule-match.js";
import { runChain, step, type ChainExit, type WalkEnv } from "./walk.js";
import type { RecentUpdate, WalkState } from "./walk-state.js";
import { sameBranchState } from "./walk-state.js";
import { packetRouted, packetWith, patch, toArray, withPacket } from "./walk-state.js";

export interface FinalBranch {
  readonly state: WalkState;
  readonly stoppedBy?: "DROP" | "REJECT";
  readonly delivery: Delivery;
}

/** How NAT is handled: rules for a NEW connection, or a recorded mapping for later packets. */
export type NatMode =
  | { readonly kind: "new" }
  | {
      readonly kind: "established";
      /** Destination rewrite at PREROUTING/OUTPUT. */
      readonly dstTo?: readonly [IPAddress, number];
      /** Source rewrite at POSTROUTING/INPUT. */
      readonly srcTo?: readonly [IPAddress, number];
    };

export interface HookRunner {
  readonly dp: NodeDataplane;
  readonly compiled: CompiledRuleSet | undefined;
  readonly evaluate: MatchEvaluator;
  readonly explain: boolean;
  readonly nat: NatMode;
  readonly recentHas: (name: string, addr: IPAddress) => boolean;
  /** Set when a rule consulted a `recent` list. */
  recentConsulted: boolean;
  readonly finals: FinalBranch[];
  /**
   * Table walks already done for this packet, by `hook/table`, with the branch state they
   * started from (see `runTable`). Indexed mode only: the naive walk is the reference.
   */
  readonly memo: Map<string, MemoEntry[]> | undefined;
  /** Set while a trace is recorded for the flow cache: conditions report what they read. */
  readonly flow: FlowReads | undefined;
}

/** Distinct branch states remembered per table and packet (beyond: walked, not remembered). */
const MEMO_LIMIT = 64;

export interface MemoEntry {
  readonly from: WalkState;
  /** null: the walk splits (statistic), so it is not reused. */
  readonly exits: readonly MemoExit[] | null;
}

/**
 * A table walk's exit, done from a state with probability 1 and empty path, steps and recent
 * updates, so it can be replayed on any branch with the same packet and flags: the branch's
 * lists get these suffixes (oldest first) and its probability is unchanged (no split).
 */
export interface MemoExit {
  readonly end: ChainExit["end"];
  readonly state: WalkState;
  readonly path: readonly string[];
  readonly steps: readonly TraceStep[];
  readonly recent: readonly RecentUpdate[];
}

/**
 * What matches and targets may consult, for one hook and table (a class: no closures per
 * packet).
 */
class HookContext implements EvalContext, TargetEnv {
  readonly ipvs?: IpvsMatchView;
  flow: FlowReads | undefined;
  constructor(
    private r: HookRunner,
    readonly hook: Hook,
    readonly table: TableName,
    ipvs: IpvsMatchView | undefined,
  ) {
    if (ipvs !== undefined) this.ipvs = ipvs;
    this.flow = r.flow;
  }
  /** The same context for another trace (the depth-first walker keeps its contexts). */
  bind(r: HookRunner): void {
    this.r = r;
    this.flow = r.flow;
  }
  addrType(ip: IPAddress, iface?: string): AddrType {
    return addrTypeOf(this.r.dp, ip, iface);
  }
  ipsetTest(name: string, key: IpsetKey): boolean | undefined {
    return this.r.dp.ipsets?.test(name, key);
  }
  recentSeen(name: string, addr: IPAddress): boolean {
    this.r.recentConsulted = true;
    return this.r.recentHas(name, addr);
  }
  nfacctExists(name: string): boolean {
    return this.r.dp.nfacct.has(name);
  }
  masqueradeSource(outInterface: string, dst: IPAddress): IPAddress | undefined {
    return masqueradeSource(this.r.dp, outInterface, dst);
  }
}

/** What the rules of one hook's table consult: the matches' and the targets' node. */
export type RuleContext = EvalContext & TargetEnv;

/** A RuleContext that can be moved to another trace's runner. */
export type BoundContext = RuleContext & { bind(r: HookRunner): void };

export function context(
  r: HookRunner,
  hook: Hook,
  table: TableName,
  ipvs?: IpvsMatchView,
): BoundContext {
  return new HookContext(r, hook, table, ipvs);
}

const isFirstPacket = (s: WalkState): boolean => !s.untracked && s.pkt.ctState.includes("NEW");

/** Applies the recorded translation where the nat table would have run. */
function applyRecordedNat(r: HookRunner, s: WalkState, manip: "dst" | "src"): WalkState {
  if (r.nat.kind !== "established" || s.untracked) return s;
  const to = manip === "dst" ? r.nat.dstTo : r.nat.srcTo;
  if (to === undefined) return s;
  const [ip, port] = to;
  const pkt = s.pkt;
  const from = joinHostPort(
    formatIP(manip === "dst" ? pkt.dst : pkt.src),
    manip === "dst" ? pkt.dport : pkt.sport,
  );
  const next: WalkState =
    manip === "dst"
      ? patch(s, { pkt: packetWith(pkt, { dst: ip, dport: port }), dnat: true })
      : patch(s, { pkt: packetWith(pkt, { src: ip, sport: port }), snat: true });
  const t: TraceStep = {
    kind: manip === "dst" ? "dnat" : "snat",
    from,
    to: joinHostPort(formatIP(ip), port),
  };
  return r.explain ? patch(next, { steps: { head: t, tail: next.steps } }) : next;
}

/**
 * Runs `tables` of `hook` over each branch; returns the branches that go on. Branches that
 * are stopped are added to `r.finals`. `natManip` says which NAT manip this hook's nat table does.
 */
export function runHook(
  r: HookRunner,
  states: readonly WalkState[],
  hook: Hook,
  tables: readonly TableName[],
  natManip: "dst" | "src" | "none",
): WalkState[] {
  let current = states as WalkState[];
  for (const stage of stagesFor(r.dp.nftables, hook, tables, natManip)) {
    if (stage.kind === "nft") {
      current = runNftStage(r, current, stage, isFirstPacket);
      continue;
    }
    const table = stage.table;
    if (table === "nat") {
      if (natManip === "none") continue;
      const fresh: WalkState[] = [];
      const later: WalkState[] = [];
      for (const s of current) (isFirstPacket(s) && r.nat.kind === "new" ? fresh : later).push(s);
      current = [
        ...runTable(r, fresh, hook, table),
        ...later.map((s) => applyRecordedNat(r, s, natManip)),
      ];
      continue;
    }
    current = runTable(r, current, hook, table);
  }
  return current;
}

function runTable(
  r: HookRunner,
  states: readonly WalkState[],
  hook: Hook,
  table: TableName,
): WalkState[] {
  if (states.length === 0) return [];
  const chain = r.compiled?.tables.get(table)?.chains.get(hook);
  if (chain === undefined) return states as WalkState[];
  const compiledTable = r.compiled!.tables.get(table)!;
  const out: WalkState[] = [];
  let plainEnv: WalkEnv | undefined;
  // Statistic branches often reach a table with equal packets (same endpoint, same marks):
  // walk it once per distinct state. A lone branch has nothing to share.
  let memo: MemoEntry[] | undefined;
  const reads = footprint(chain);
  if (states.length > 1 && r.memo !== undefined) {
    const k = `${hook}/${table}`;
    memo = r.memo.get(k);
    if (memo === undefined) r.memo.set(k, (memo = []));
  }
  for (const s0 of states) {
    const env: WalkEnv =
      s0.ipvs === undefined
        ? (plainEnv ??= {
            dp: r.dp,
            evaluate: r.evaluate,
            explain: r.explain,
            table: compiledTable,
            ctx: context(r, hook, table),
          })
        : {
            dp: r.dp,
            evaluate: r.evaluate,
            explain: r.explain,
            table: compiledTable,
            ctx: context(r, hook, table, s0.ipvs),
          };
    let known = memo === undefined ? undefined : lookup(memo, s0, reads);
    if (memo !== undefined && known === undefined && memo.length < MEMO_LIMIT) {
      known = { from: s0, exits: memoExits(runChain(env, chain, enter(r, env, chain, bare(s0)))) };
      memo.push(known);
    }
    if (known === undefined || known.exits === null)
      for (const exit of runChain(env, chain, enter(r, env, chain, s0)))
        leave(r, env, chain, table, exit.state, exit.end, out);
    else
      for (const m of known.exits)
        leave(r, env, chain, table, graft(s0, m, known.from.pkt, reads), m.end, out);
  }
  return out;
}

/** Where a branch goes after a table: on (`out`), or stopped (`r.finals`). */
function leave(
  r: HookRunner,
  env: WalkEnv,
  chain: CompiledChain,
  table: TableName,
  state: WalkState,
  end: ChainExit["end"],
  out: WalkState[],
): void {
  switch (end) {
    case "ACCEPT":
      out.push(state);
      return;
    case "DROP":
    case "REJECT":
      r.finals.push({ state, stoppedBy: end, delivery: "stopped" });
      return;
    case "RETURN":
    case "FALLTHROUGH": {
      const policy = chain.policy ?? "ACCEPT";
      if (policy === "ACCEPT") {
        out.push(state);
        return;
      }
      const st = r.explain
        ? step(env, state, { kind: "policy", table, chain: env.ctx.hook, policy })
        : state;
      r.finals.push({ state: st, stoppedBy: "DROP", delivery: "stopped" });
      return;
    }
  }
}

/** The branch entering a table's built-in chain (with its explanation step). */
function enter(r: HookRunner, env: WalkEnv, chain: CompiledChain, s: WalkState): WalkState {
  return r.explain && chain.rules.length > 0
    ? step(env, s, { kind: "hook", hook: env.ctx.hook, table: env.ctx.table })
    : s;
}

/** `s` with probability 1 and empty lists: the start of a reusable table walk. */
function bare(s: WalkState): WalkState {
  return {
    pkt: s.pkt,
    prob: 1,
    path: undefined,
    steps: undefined,
    dnat: s.dnat,
    snat: s.snat,
    accepted: s.accepted,
    untracked: s.untracked,
    recentUpdates: undefined,
    ipvs: s.ipvs,
    randomPort: s.randomPort,
  };
}

function memoExits(exits: readonly ChainExit[]): readonly MemoExit[] | null {
  const out: MemoExit[] = [];
  for (const e of exits) {
    // A probability below 1 means a statistic split: replaying it would multiply in another
    // order, so such walks are not reused (probabilities stay bit-identical).
    if (e.state.prob !== 1) return null;
    out.push({
      end: e.end,
      state: e.state,
      path: toArray(e.state.path),
      steps: toArray(e.state.steps),
      recent: toArray(e.state.recentUpdates),
    });
  }
  return out;
}

function graft(s0: WalkState, m: MemoExit, from: Packet, reads: number): WalkState {
  let path = s0.path;
  for (const l of m.path) path = { head: l, tail: path };
  let steps = s0.steps;
  for (const t of m.steps) steps = { head: t, tail: steps };
  let recent = s0.recentUpdates;
  for (const u of m.recent) recent = { head: u, tail: recent };
  const e = m.state;
  return {
    pkt: rebase(e.pkt, from, s0.pkt, reads),
    prob: s0.prob,
    path,
    steps,
    dnat: e.dnat,
    snat: e.snat,
    accepted: e.accepted,
    untracked: e.untracked,
    recentUpdates: recent,
    ipvs: e.ipvs,
    randomPort: e.randomPort,
  };
}

/** The memo entries of one table, found by a linear scan (a packet has few distinct states). */
function lookup(entries: readonly MemoEntry[], s: WalkState, f: number): MemoEntry | undefined {
  for (const e of entries) if (sameBranchState(e.from, s, f)) return e;
  return undefined;
}

/**
 * The exit packet for a branch that started as `branch`: fields outside the footprint were
 * neither read nor written by the walk, so they keep the branch's own values.
 */
function rebase(exit: Packet, from: Packet, branch: Packet, f: number): Packet {
  if (branch === from || f === ALL) return exit;
  if (exit === from) return branch;
  // packetWith(exit, {...}) field by field (`??` as there), without the change object: this
  // runs for every branch that replays a walk.
  return {
    family: exit.family,
    protocol: exit.protocol,
    src: f & SRC ? exit.src : (branch.src ?? exit.src),
    sport: f & SPORT ? exit.sport : (branch.sport ?? exit.sport),
    dst: f & DST ? exit.dst : (branch.dst ?? exit.dst),
    dport: f & DPORT ? exit.dport : (branch.dport ?? exit.dport),
    inInterface: f & IN_IFACE ? exit.inInterface : (branch.inInterface ?? exit.inInterface),
    outInterface: f & OUT_IFACE ? exit.outInterface : (branch.outInterface ?? exit.outInterface),
    mark: f & MARK ? exit.mark : (branch.mark ?? exit.mark),
    connmark: f & CONNMARK ? exit.connmark : (branch.connmark ?? exit.connmark),
    ctState: exit.ctState,
    ctOrig: exit.ctOrig,
    icmpType: exit.icmpType,
    icmpCode: exit.icmpCode,
    fragment: exit.fragment,
    tcpFlags: exit.tcpFlags,
    ctDirection: exit.ctDirection,
  } as Packet;
}

export function routeBranch(r: HookRunner, s: WalkState): { state: WalkState; local: boolean } {
  const d = route(r.dp, s.pkt.dst);
  const next = withPacket(s, packetRouted(s.pkt, d.outInterface));
  const st = r.explain
    ? patch(next, {
        steps: {
          head: {
            kind: "route",
            decision: d.local ? "local" : "forward",
            outInterface: d.outInterface,
          } as TraceStep,
          tail: next.steps,
        },
      })
    : next;
  return { state: st, local: d.local };
}
