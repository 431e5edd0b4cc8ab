/**
 * The packet tracer: every way a packet can go through a node's netfilter hooks, with exact
 * probabilities. See hooks.ts for the hook order and walk.ts for chain semantics.
 *
 * `recent` lists: the first trace assumes the client is new (only the caller's `recent`
 * assumptions are in the lists). If any rule consulted a list, a second scenario traces a
 * repeat within the timeout: for each branch of the first packet, the lists hold what that
 * branch put there, and the repeat's outcomes are weighted by that branch's probability.
 * `outcomes` are the first-packet scenario; `scenarios` holds both.
 */
import { ipEquals, type IPAddress } from "../../net/index.js";
import type { Packet, RuleSet } from "../model.js";
import { interfaceFor, isLocalAddress, route } from "./addressing.js";
import { compileRuleSet, type CompiledRuleSet } from "./chain-index.js";
import { buildDataplane, type NodeDataplane } from "./dataplane.js";
import { runHook, routeBranch, type FinalBranch, type HookRunner, type NatMode } from "./hooks.js";
import { mergeFinals, type BuiltOutcome, type WeightedFinal } from "./outcomes.js";
import { parsePacketSpec, TraceInputError } from "./packet-spec.js";
import type {
  ConntrackEntry,
  PacketSpec,
  ScenarioResult,
  TraceOrigin,
  TraceResult,
} from "./result.js";
import type { MatchEvaluator } from "./rule-match.js";
import { defaultMatchEvaluator } from "./match-evaluator.js";
import { ipvsStage } from "./ipvs-stage.js";
import {
  FLOW_CACHE_MIN_COST,
  FlowCache,
  type FlowCacheStats,
  type RebuiltOutcomes,
} from "./flow-cache.js";
import { FlowRecorder } from "./flow-reads.js";
import { fastWalk, fastWalkApplies } from "./fast-walk.js";
import { TraceError } from "./walk.js";
import {
  initialState,
  toArray,
  type Cons,
  type RecentUpdate,
  type WalkState,
} from "./walk-state.js";
import { packetWith, withPacket } from "./walk-state.js";

export interface TraceOptions {
  /** Use the destination index (default true); false walks every rule (the reference). */
  readonly indexed?: boolean;
  /** Record explanation steps (default true; the benchmark turns it off). */
  readonly explain?: boolean;
  /** Match evaluation; default: the match registry. */
  readonly evaluateMatch?: MatchEvaluator;
  /**
   * Reuse the outcomes of an earlier trace of an equivalent packet (default true; applies to
   * traces without explanations, indexed, with the registry's evaluator). See flow-cache.ts.
   * `"all"` also keeps walks cheaper than FLOW_CACHE_MIN_COST (for workloads that repeat such
   * packets, and for tests).
   */
  readonly flowCache?: boolean | "all";
}

interface Prepared {
  readonly packet: Packet;
  readonly origin: TraceOrigin;
  readonly compiled: CompiledRuleSet | undefined;
  readonly notes: string[];
}

function prepare(
  dp: NodeDataplane,
  packet: Packet,
  origin: TraceOrigin | undefined,
  inInterface: string | undefined,
  indexed: boolean,
): Prepared {
  const local = isLocalAddress(dp, packet.src);
  const o: TraceOrigin = origin ?? (local ? "local" : "remote");
  const rs = dp.ruleSets[packet.family];
  const notes: string[] = [];
  if (rs === undefined) notes.push(`no ${packet.family} rule set: every hook accepts`);
  // packetWith gives every packet of the walk one shape.
  const pkt = packetWith(
    packet,
    o === "remote" ? { inInterface: inInterface ?? interfaceFor(dp, packet.src) } : {},
  );
  return {
    packet: pkt,
    origin: o,
    compiled: rs === undefined ? undefined : compileRuleSet(rs, indexed),
    notes,
  };
}

type RecentLookup = HookRunner["recentHas"];

/** The node's own `recent` lists' look-up, made once per node (not a closure per trace). */
const nodeRecent = new WeakMap<NodeDataplane, RecentLookup>();

/** Whether a `recent` list holds an address: the branch's own updates, then the node's lists. */
function recentLookup(dp: NodeDataplane, recent: Cons<RecentUpdate> | undefined): RecentLookup {
  let inBase = nodeRecent.get(dp);
  if (inBase === undefined) {
    const base = dp.recent;
    inBase = (name, addr) => base.some((e) => e.name === name && ipEquals(e.address, addr));
    nodeRecent.set(dp, inBase);
  }
  if (recent === undefined) return inBase;
  const lists = inBase;
  return (name, addr) => {
    for (let l: Cons<RecentUpdate> | undefined = recent; l !== undefined; l = l.tail)
      if (l.head.name === name && ipEquals(l.head.address, addr)) return true;
    return lists(name, addr);
  };
}

function hookRunner(
  dp: NodeDataplane,
  prep: Prepared,
  nat: NatMode,
  opts: TraceOptions,
  recent: Cons<RecentUpdate> | undefined,
  flow: FlowRecorder | undefined,
  breadthFirst = true,
): HookRunner {
  return {
    dp,
    compiled: prep.compiled,
    evaluate: opts.evaluateMatch ?? defaultMatchEvaluator,
    explain: opts.explain ?? true,
    nat,
    recentHas: recentLookup(dp, recent),
    recentConsulted: false,
    finals: [],
    // The breadth-first walk's table memo (the depth-first walk keeps its own).
    memo: (opts.indexed ?? true) && breadthFirst ? new Map() : undefined,
    flow,
  };
}

/** Walks one packet through the hooks; returns its final branches. */
function walkPacket(
  dp: NodeDataplane,
  prep: Prepared,
  nat: NatMode,
  opts: TraceOptions,
  recent: Cons<RecentUpdate> | undefined,
  flow?: FlowRecorder,
): { finals: FinalBranch[]; recentConsulted: boolean } {
  const r = hookRunner(dp, prep, nat, opts, recent, flow);
  const start = initialState(prep.packet);
  if (prep.origin === "remote") {
    const pre = runHook(r, [start], "PREROUTING", ["raw", "mangle", "nat"], "dst");
    const toInput: WalkState[] = [];
    const toForward: WalkState[] = [];
    for (const s of pre) {
      const d = routeBranch(r, s);
      (d.local ? toInput : toForward).push(
        d.local ? withPacket(d.state, packetWith(d.state.pkt, { outInterface: "" })) : d.state,
      );
    }
    const input = runHook(r, toInput, "INPUT", ["mangle", "filter", "security", "nat"], "src");
    for (const s of input) {
      const viaIpvs = ipvsStage(r, s, "LOCAL_IN");
      if (viaIpvs === undefined) r.finals.push({ state: s, delivery: "local" });
      else afterIpvs(r, viaIpvs);
    }
    const fwd = runHook(r, toForward, "FORWARD", ["mangle", "filter", "security"], "none");
    const post = runHook(r, fwd, "POSTROUTING", ["mangle", "nat"], "src");
    for (const s of post) r.finals.push({ state: s, delivery: "forward" });
  } else {
    const first = route(dp, prep.packet.dst);
    const s0 = withPacket(start, packetWith(start.pkt, { outInterface: first.outInterface }));
    // IPVS takes locally generated packets at LOCAL_OUT between nat (-100) and filter (0)
    // (ip_vs_local_request4, NF_IP_PRI_NAT_DST + 2), so filter OUTPUT (KUBE-IPVS-OUT-FILTER's
    // `-m ipvs`) sees the packet IPVS has already scheduled.
    const natOut = runHook(r, [s0], "OUTPUT", ["raw", "mangle", "nat"], "dst");
    const scheduled: WalkState[] = [];
    for (const s of natOut) {
      const viaIpvs = ipvsStage(r, s, "LOCAL_OUT");
      if (viaIpvs === undefined) scheduled.push(s);
      else scheduled.push(...viaIpvs);
    }
    const out = runHook(r, scheduled, "OUTPUT", ["filter", "security"], "dst");
    const routed: WalkState[] = [];
    for (const s of out) routed.push(routeBranch(r, s).state);
    const post = runHook(r, routed, "POSTROUTING", ["mangle", "nat"], "src");
    const loop: WalkState[] = [];
    for (const s of post) {
      if (s.pkt.outInterface === "lo")
        loop.push(withPacket(s, packetWith(s.pkt, { inInterface: "lo", outInterface: "" })));
      else r.finals.push({ state: s, delivery: s.ipvs?.isIpvs === true ? "ipvs" : "forward" });
    }
    const pre = runHook(r, loop, "PREROUTING", ["raw", "mangle"], "none");
    const input = runHook(r, pre, "INPUT", ["mangle", "filter", "security"], "none");
    for (const s of input)
      r.finals.push({ state: s, delivery: s.ipvs?.isIpvs === true ? "ipvs" : "local" });
  }
  return { finals: r.finals, recentConsulted: r.recentConsulted };
}

/** IPVS-forwarded branches go out through OUTPUT (mangle, filter) and POSTROUTING. */
function afterIpvs(r: HookRunner, states: readonly WalkState[]): void {
  const routed = states.map((s) => routeBranch(r, s).state);
  const out = runHook(r, routed, "OUTPUT", ["mangle", "filter", "security"], "none");
  const post = runHook(r, out, "POSTROUTING", ["mangle", "nat"], "src");
  for (const s of post) r.finals.push({ state: s, delivery: "ipvs" });
}

/** How the packet reaches the walk: what the explanation says besides the outcomes. */
export interface Arrival {
  readonly origin: TraceOrigin;
  readonly inInterface: string;
  readonly notes: readonly string[];
}

function arrivalOf(prep: Prepared): Arrival {
  return { origin: prep.origin, inInterface: prep.packet.inInterface, notes: prep.notes };
}

function originText(src: string, a: Arrival): string {
  return a.origin === "local"
    ? `${src} is a local address: the packet is generated on the node (OUTPUT)`
    : `${src} is not a local address: the packet arrives on ${a.inInterface} (PREROUTING)`;
}

function listed(built: readonly BuiltOutcome[]): RebuiltOutcomes {
  return { outcomes: built.map((b) => b.outcome), explanations: built.map((b) => b.steps) };
}

function assemble(
  printed: TraceResult["packet"],
  arrival: Arrival,
  first: RebuiltOutcomes,
  repeat: RebuiltOutcomes | undefined,
): TraceResult {
  const outcomes = first.outcomes;
  const scenarios: ScenarioResult[] | undefined =
    repeat === undefined
      ? undefined
      : [
          { scenario: "first-packet", outcomes },
          { scenario: "repeat-within-timeout", outcomes: repeat.outcomes },
        ];
  const notes = [...arrival.notes];
  if (scenarios !== undefined)
    notes.push(
      "a `recent` list was consulted: outcomes are for the client's first packet; scenarios[1] is a repeat within the timeout",
    );
  const explanation = {
    origin: originText(printed.src, arrival),
    inInterface: arrival.inInterface,
    outcomes: first.explanations,
    notes,
  };
  // Written out rather than spread: this runs for every trace, flow cache hits included.
  return scenarios === undefined
    ? { packet: printed, origin: arrival.origin, scenario: "first-packet", outcomes, explanation }
    : {
        packet: printed,
        origin: arrival.origin,
        scenario: "first-packet",
        outcomes,
        scenarios,
        explanation,
      };
}

const bareNodes = new WeakMap<RuleSet, NodeDataplane>();

function asDataplane(input: NodeDataplane | RuleSet): NodeDataplane {
  if (!("tables" in input)) return input;
  // A bare rule set (interfaces.md: `trace(ruleSet | node dataplane, packet)`): a node whose
  // only addresses are the loopback ones (one per rule set, so its flow cache is kept).
  let dp = bareNodes.get(input);
  if (dp === undefined) {
    dp = buildDataplane({
      ruleSets: [input],
      interfaces: [{ name: "lo", addresses: ["127.0.0.1/8", "::1/128"] }],
    });
    bareNodes.set(input, dp);
  }
  return dp;
}

const flowCaches = new WeakMap<NodeDataplane, FlowCache>();

/** The flow cache for these options, or undefined when they rule it out. */
function flowCacheFor(dp: NodeDataplane, opts: TraceOptions): FlowCache | undefined {
  if (opts.flowCache === false || opts.indexed === false || opts.evaluateMatch !== undefined)
    return undefined;
  // Explanations are not cached: an entry would keep every step object of the walk alive,
  // which costs the garbage collector more than the walks saved (measured: 1.5x slower at a
  // 50 % hit rate). IPVS schedulers may hash on any field.
  if (opts.explain !== false || dp.ipvs !== undefined) return undefined;
  if (dp.nftables !== undefined && dp.nftables.length > 0) return undefined;
  let cache = flowCaches.get(dp);
  if (cache === undefined) flowCaches.set(dp, (cache = new FlowCache(dp.ruleSets)));
  return cache;
}

/** Hits, misses and size of a dataplane's flow cache (undefined before its first trace). */
export function flowCacheStats(dp: NodeDataplane): FlowCacheStats | undefined {
  return flowCaches.get(dp)?.stats();
}

/** The depth-first walk gives the same outcomes: no explanation asked for, nothing it omits. */
function usesFastWalk(dp: NodeDataplane, prep: Prepared, opts: TraceOptions): boolean {
  if (opts.explain !== false || opts.indexed === false || opts.evaluateMatch !== undefined)
    return false;
  if (dp.nftables !== undefined && dp.nftables.length > 0) return false;
  const c = prep.compiled;
  if (c === undefined) return dp.ipvs === undefined;
  return fastWalkApplies(c) && dp.ipvs === undefined;
}

/**
 * The fast walk's outcomes, or undefined when it met a broken rule set (a loop, a missing
 * chain), or a rule consulted a `recent` list (the repeat scenario then needs what each
 * branch put into the lists): the reference walk then traces the packet.
 */
function tryFastWalk(
  r: HookRunner,
  prep: Prepared,
  printed: TraceResult["packet"],
): { readonly built: BuiltOutcome[]; readonly cost: number } | undefined {
  try {
    const walked = fastWalk(r, prep.compiled, prep.origin, prep.packet, printed);
    return r.recentConsulted ? undefined : walked;
  } catch (e) {
    if (e instanceof TraceError) return undefined;
    throw e;
  }
}

/** Every outcome of the first packet of a new connection. */
export function trace(
  input: NodeDataplane | RuleSet,
  spec: PacketSpec,
  opts: TraceOptions = {},
): TraceResult {
  const dp = asDataplane(input);
  const { packet, printed } = parsePacketSpec(spec);
  const cache = flowCacheFor(dp, opts);
  const key = { packet, origin: spec.origin, inInterface: spec.inInterface };
  const cached = cache?.lookup(key, printed.src, printed.dst);
  if (cached !== undefined) return assemble(printed, cached.arrival, cached.outcomes, undefined);
  const prep = prepare(dp, packet, spec.origin, spec.inInterface, opts.indexed ?? true);
  const arrival = arrivalOf(prep);
  let recorder: FlowRecorder | undefined;
  if (cache !== undefined) {
    recorder = new FlowRecorder(prep.packet);
    recorder.addressing(dp.addresses);
  }
  const nat: NatMode = { kind: "new" };
  if (usesFastWalk(dp, prep, opts)) {
    const walked = tryFastWalk(
      hookRunner(dp, prep, nat, opts, undefined, recorder, false),
      prep,
      printed,
    );
    if (walked !== undefined) {
      // A walk that cheap costs about what a hit costs; keeping it would cost the collector.
      if (
        recorder !== undefined &&
        (walked.cost >= FLOW_CACHE_MIN_COST || opts.flowCache === "all")
      )
        cache!.insert(key, recorder, arrival, walked.built);
      return assemble(printed, arrival, listed(walked.built), undefined);
    }
  }
  const first = walkPacket(dp, prep, nat, opts, undefined, recorder);
  const firstBuilt = mergeFinals(
    first.finals.map((final) => ({ final, scale: 1 })),
    printed.proto,
    prep.packet,
  );
  if (recorder !== undefined && !first.recentConsulted)
    cache!.insert(key, recorder, arrival, firstBuilt);
  let repeat: BuiltOutcome[] | undefined;
  if (first.recentConsulted) {
    const weighted: WeightedFinal[] = [];
    for (const f of first.finals) {
      if (f.state.recentUpdates === undefined) {
        weighted.push({ final: f, scale: 1 });
        continue;
      }
      const again = walkPacket(dp, prep, nat, opts, f.state.recentUpdates);
      for (const g of again.finals) weighted.push({ final: g, scale: f.state.prob });
    }
    repeat = mergeFinals(weighted, printed.proto, prep.packet);
  }
  return assemble(
    printed,
    arrival,
    listed(firstBuilt),
    repeat === undefined ? undefined : listed(repeat),
  );
}

/**
 * A later packet of a connection conntrack recorded: `original` direction (client to
 * service again) or `reply` (server back to client). The nat table is not consulted; the
 * recorded translation is applied (and, for replies, undone) where NAT happens.
 */
export function traceEstablished(
  dp: NodeDataplane,
  entry: ConntrackEntry,
  direction: "original" | "reply",
  opts: TraceOptions = {},
): TraceResult {
  const o = entry.original;
  const rp = entry.reply;
  const wire = direction === "original" ? o : rp;
  const spec: PacketSpec = {
    proto: entry.proto,
    src: wire.src,
    sport: wire.sport,
    dst: wire.dst,
    dport: wire.dport,
  };
  const { packet, printed } = parsePacketSpec(spec);
  const states: Packet["ctState"] = [
    "ESTABLISHED",
    ...(entry.dnat ? (["DNAT"] as const) : []),
    ...(entry.snat ? (["SNAT"] as const) : []),
  ];
  const parse = (ip: string): IPAddress =>
    parsePacketSpec({ ...spec, src: ip, dst: ip }).packet.src;
  const nat: NatMode =
    direction === "original"
      ? {
          kind: "established",
          ...(entry.dnat ? { dstTo: [parse(rp.src), rp.sport] as const } : {}),
          ...(entry.snat ? { srcTo: [parse(rp.dst), rp.dport] as const } : {}),
        }
      : {
          kind: "established",
          ...(entry.snat ? { dstTo: [parse(o.src), o.sport] as const } : {}),
          ...(entry.dnat ? { srcTo: [parse(o.dst), o.dport] as const } : {}),
        };
  const withCt: Packet = {
    ...packet,
    ctState: states,
    ctOrig: { src: parse(o.src), dst: parse(o.dst), sport: o.sport, dport: o.dport },
  };
  const prep = prepare(dp, withCt, undefined, undefined, opts.indexed ?? true);
  const run = walkPacket(dp, prep, nat, opts, undefined);
  const built = mergeFinals(
    run.finals.map((final) => ({ final, scale: 1 })),
    printed.proto,
    prep.packet,
  );
  return assemble(printed, arrivalOf(prep), listed(built), undefined);
}

export { TraceInputError, toArray };
