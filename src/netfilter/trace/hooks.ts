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
import { runChain, step, type WalkEnv } from "./walk.js";
import type { WalkState } from "./walk-state.js";
import { patch } from "./walk-state.js";

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
    const s =
      r.explain && chain.rules.length > 0 ? step(env, s0, { kind: "hook", hook, table }) : s0;
    for (const exit of runChain(env, chain, s)) {
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
