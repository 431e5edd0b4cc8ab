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
import type { AddrType, EvalContext, Hook, IpsetKey, IpvsMatchView, TableName } from "../model.js";
import { addrTypeOf, route } from "./addressing.js";
import type { CompiledRuleSet } from "./chain-index.js";
import type { NodeDataplane } from "./dataplane.js";
import type { Delivery, TraceStep } from "./result.js";
import type { MatchEvaluator } from "./rule-match.js";
import { runChain, step, type ChainExit, type WalkEnv } from "./walk.js";
import type { RecentUpdate, WalkState } from "./walk-state.js";
import { patch, toArray } from "./walk-state.js";

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
   * Table walks already done for this packet, by hook, table and branch state (see
   * `runTable`); null: the walk splits (statistic), so it is not reused.
   */
  readonly memo: Map<string, readonly MemoExit[] | null>;
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

/** What matches may consult, for one hook and table (a class: no closures per packet). */
class HookContext implements EvalContext {
  readonly ipvs?: IpvsMatchView;
  constructor(
    private readonly r: HookRunner,
    readonly hook: Hook,
    readonly table: TableName,
    ipvs: IpvsMatchView | undefined,
  ) {
    if (ipvs !== undefined) this.ipvs = ipvs;
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
}

function context(r: HookRunner, hook: Hook, table: TableName, ipvs?: IpvsMatchView): EvalContext {
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
      ? patch(s, { pkt: { ...pkt, dst: ip, dport: port }, dnat: true })
      : patch(s, { pkt: { ...pkt, src: ip, sport: port }, snat: true });
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
  for (const table of tables) {
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
  const memo = states.length > 1 ? r.memo : undefined;
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
    const withHook = (st: WalkState): WalkState =>
      r.explain && chain.rules.length > 0 ? step(env, st, { kind: "hook", hook, table }) : st;
    let exits: readonly ChainExit[];
    if (memo === undefined) exits = runChain(env, chain, withHook(s0));
    else {
      const key = `${hook}/${table}/${stateKey(s0)}`;
      let known = memo.get(key);
      if (known === undefined) {
        known = memoExits(runChain(env, chain, withHook(bare(s0))));
        memo.set(key, known);
      }
      exits =
        known === null
          ? runChain(env, chain, withHook(s0))
          : known.map((m) => ({ state: graft(s0, m), end: m.end }));
    }
    for (const exit of exits) {
      switch (exit.end) {
        case "ACCEPT":
          out.push(exit.state);
          break;
        case "DROP":
        case "REJECT":
          r.finals.push({ state: exit.state, stoppedBy: exit.end, delivery: "stopped" });
          break;
        case "RETURN":
        case "FALLTHROUGH": {
          const policy = chain.policy ?? "ACCEPT";
          if (policy === "ACCEPT") {
            out.push(exit.state);
            break;
          }
          const st = r.explain
            ? step(env, exit.state, { kind: "policy", table, chain: hook, policy })
            : exit.state;
          r.finals.push({ state: st, stoppedBy: "DROP", delivery: "stopped" });
          break;
        }
      }
    }
  }
  return out;
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

function graft(s0: WalkState, m: MemoExit): WalkState {
  let path = s0.path;
  for (const l of m.path) path = { head: l, tail: path };
  let steps = s0.steps;
  for (const t of m.steps) steps = { head: t, tail: steps };
  let recent = s0.recentUpdates;
  for (const u of m.recent) recent = { head: u, tail: recent };
  const e = m.state;
  return {
    pkt: e.pkt,
    prob: s0.prob,
    path,
    steps,
    dnat: e.dnat,
    snat: e.snat,
    accepted: e.accepted,
    untracked: e.untracked,
    recentUpdates: recent,
    ipvs: e.ipvs,
  };
}

function ipKey(a: IPAddress | undefined): string {
  return a === undefined ? "" : `${a.value}`;
}

/** Everything a table walk reads from a branch (all but probability, path, steps, recent). */
function stateKey(s: WalkState): string {
  const p = s.pkt;
  const o = p.ctOrig;
  const v = s.ipvs;
  return (
    `${p.family} ${p.protocol} ${ipKey(p.src)} ${p.sport} ${ipKey(p.dst)} ${p.dport} ` +
    `${p.inInterface} ${p.outInterface} ${p.mark} ${p.connmark} ${p.ctState.join(",")} ` +
    `${p.icmpType} ${p.icmpCode} ${p.fragment} ${p.tcpFlags} ${p.ctDirection} ` +
    (o === undefined ? "-" : `${ipKey(o.src)} ${ipKey(o.dst)} ${o.sport} ${o.dport}`) +
    ` ${s.dnat} ${s.snat} ${s.accepted} ${s.untracked} ` +
    (v === undefined
      ? "-"
      : `${v.isIpvs} ${ipKey(v.vaddr)} ${v.vport} ${v.vproto} ${v.vdir}`)
  );
}

export function routeBranch(r: HookRunner, s: WalkState): { state: WalkState; local: boolean } {
  const d = route(r.dp, s.pkt.dst);
  const next: WalkState = patch(s, { pkt: { ...s.pkt, outInterface: d.outInterface } });
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
