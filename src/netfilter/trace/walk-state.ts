/**
 * The state of one branch of a trace. Immutable: a statistic split or a target that changes
 * the packet makes a new state; the path and steps are shared linked lists, so branching is
 * cheap.
 */
import type { IPAddress, PortRange } from "../../net/index.js";
import type { IpvsMatchView, Packet } from "../model.js";
import type { TraceStep } from "./result.js";
import { CONNMARK, DPORT, DST, IN_IFACE, MARK, OUT_IFACE, SPORT, SRC } from "./footprint.js";

export interface Cons<T> {
  readonly head: T;
  readonly tail: Cons<T> | undefined;
}

export function toArray<T>(list: Cons<T> | undefined): T[] {
  const out: T[] = [];
  for (let l = list; l !== undefined; l = l.tail) out.push(l.head);
  return out.reverse();
}

export interface RecentUpdate {
  readonly name: string;
  readonly address: IPAddress;
}

export interface WalkState {
  readonly pkt: Packet;
  readonly prob: number;
  readonly path: Cons<string> | undefined;
  readonly steps: Cons<TraceStep> | undefined;
  /** Destination / source translated by NAT so far. */
  readonly dnat: boolean;
  readonly snat: boolean;
  /** An explicit ACCEPT rule decided somewhere along the way. */
  readonly accepted: boolean;
  /** NOTRACK / CT --notrack: no conntrack, so no NAT. */
  readonly untracked: boolean;
  /** Addresses this packet put into `recent` lists (`--set`, `--update`). */
  readonly recentUpdates: Cons<RecentUpdate> | undefined;
  readonly ipvs: IpvsMatchView | undefined;
  /**
   * The range SNAT/MASQUERADE draws the source port from at random (the packet shows the
   * range's first port, or its own): the real port differs per connection.
   */
  readonly randomPort: PortRange | undefined;
}

type StatePatch = { -readonly [K in keyof WalkState]?: WalkState[K] };

/**
 * A copy of `s` with `c` applied. Written out field by field (not `{ ...s, ...c }`) so every
 * state has the same shape: object spread over states of varying shapes was the tracer's
 * hottest spot. A patch never clears a field to undefined.
 */
export function patch(s: WalkState, c: StatePatch): WalkState {
  return {
    pkt: c.pkt ?? s.pkt,
    prob: c.prob ?? s.prob,
    path: c.path ?? s.path,
    steps: c.steps ?? s.steps,
    dnat: c.dnat ?? s.dnat,
    snat: c.snat ?? s.snat,
    accepted: c.accepted ?? s.accepted,
    untracked: c.untracked ?? s.untracked,
    recentUpdates: c.recentUpdates ?? s.recentUpdates,
    ipvs: c.ipvs ?? s.ipvs,
    randomPort: c.randomPort ?? s.randomPort,
  };
}

/**
 * `patch(s, { path: label :: s.path, prob })` without the patch object (the hot path); `prob`
 * defaults to the state's own.
 */
export function withPath(s: WalkState, label: string, prob = s.prob): WalkState {
  return {
    pkt: s.pkt,
    prob,
    path: { head: label, tail: s.path },
    steps: s.steps,
    dnat: s.dnat,
    snat: s.snat,
    accepted: s.accepted,
    untracked: s.untracked,
    recentUpdates: s.recentUpdates,
    ipvs: s.ipvs,
    randomPort: s.randomPort,
  };
}

/** `patch(s, { prob })` without the patch object. */
export function withProb(s: WalkState, prob: number): WalkState {
  return {
    pkt: s.pkt,
    prob,
    path: s.path,
    steps: s.steps,
    dnat: s.dnat,
    snat: s.snat,
    accepted: s.accepted,
    untracked: s.untracked,
    recentUpdates: s.recentUpdates,
    ipvs: s.ipvs,
    randomPort: s.randomPort,
  };
}

export function initialState(pkt: Packet): WalkState {
  return {
    pkt,
    prob: 1,
    path: undefined,
    steps: undefined,
    dnat: false,
    snat: false,
    accepted: false,
    untracked: false,
    recentUpdates: undefined,
    ipvs: undefined,
    randomPort: undefined,
  };
}

/** What a target or routing step changes in a packet. */
export interface PacketChange {
  readonly src?: IPAddress;
  readonly sport?: number;
  readonly dst?: IPAddress;
  readonly dport?: number;
  readonly inInterface?: string;
  readonly outInterface?: string;
  readonly mark?: number;
  readonly connmark?: number;
  readonly ctState?: Packet["ctState"];
}

/**
 * `{ ...p, ...c }` written out: every packet the walk makes has the same fields in the same
 * order (absent optional fields are present as undefined, which no match distinguishes), so
 * the matches' property reads stay monomorphic and copying is cheap.
 */
export function packetWith(p: Packet, c: PacketChange): Packet {
  return {
    family: p.family,
    protocol: p.protocol,
    src: c.src ?? p.src,
    sport: c.sport ?? p.sport,
    dst: c.dst ?? p.dst,
    dport: c.dport ?? p.dport,
    inInterface: c.inInterface ?? p.inInterface,
    outInterface: c.outInterface ?? p.outInterface,
    mark: c.mark ?? p.mark,
    connmark: c.connmark ?? p.connmark,
    ctState: c.ctState ?? p.ctState,
    ctOrig: p.ctOrig,
    icmpType: p.icmpType,
    icmpCode: p.icmpCode,
    fragment: p.fragment,
    tcpFlags: p.tcpFlags,
    ctDirection: p.ctDirection,
  } as Packet;
}

/** `patch(s, { pkt })` without the patch object. */
export function withPacket(s: WalkState, pkt: Packet): WalkState {
  return {
    pkt,
    prob: s.prob,
    path: s.path,
    steps: s.steps,
    dnat: s.dnat,
    snat: s.snat,
    accepted: s.accepted,
    untracked: s.untracked,
    recentUpdates: s.recentUpdates,
    ipvs: s.ipvs,
    randomPort: s.randomPort,
  };
}

/** `patch(s, { pkt, dnat: true })` (or `snat`) without the patch object. */
export function translated(
  s: WalkState,
  pkt: Packet,
  side: "dnat" | "snat",
  randomPort: PortRange | undefined,
): WalkState {
  return {
    pkt,
    prob: s.prob,
    path: s.path,
    steps: s.steps,
    dnat: side === "dnat" || s.dnat,
    snat: side === "snat" || s.snat,
    accepted: s.accepted,
    untracked: s.untracked,
    recentUpdates: s.recentUpdates,
    ipvs: s.ipvs,
    randomPort: randomPort ?? s.randomPort,
  };
}

/*
 * packetWith for the changes the walk makes per branch, without a change object: packetWith
 * reads its change objects of many shapes megamorphically. Same result (no value is undefined).
 */

/** `packetWith(p, { dst, dport, ctState })` (side "dst") or `{ src, sport, ctState }`. */
export function packetTranslated(
  p: Packet,
  side: "src" | "dst",
  ip: IPAddress,
  port: number,
  ctState: Packet["ctState"],
): Packet {
  const d = side === "dst";
  return {
    family: p.family,
    protocol: p.protocol,
    src: d ? p.src : ip,
    sport: d ? p.sport : port,
    dst: d ? ip : p.dst,
    dport: d ? port : p.dport,
    inInterface: p.inInterface,
    outInterface: p.outInterface,
    mark: p.mark,
    connmark: p.connmark,
    ctState,
    ctOrig: p.ctOrig,
    icmpType: p.icmpType,
    icmpCode: p.icmpCode,
    fragment: p.fragment,
    tcpFlags: p.tcpFlags,
    ctDirection: p.ctDirection,
  } as Packet;
}

/** `packetWith(p, { outInterface })`. */
export function packetRouted(p: Packet, outInterface: string): Packet {
  return {
    family: p.family,
    protocol: p.protocol,
    src: p.src,
    sport: p.sport,
    dst: p.dst,
    dport: p.dport,
    inInterface: p.inInterface,
    outInterface,
    mark: p.mark,
    connmark: p.connmark,
    ctState: p.ctState,
    ctOrig: p.ctOrig,
    icmpType: p.icmpType,
    icmpCode: p.icmpCode,
    fragment: p.fragment,
    tcpFlags: p.tcpFlags,
    ctDirection: p.ctDirection,
  } as Packet;
}

export function sameIp(a: IPAddress | undefined, b: IPAddress | undefined): boolean {
  return (
    a === b || (a !== undefined && b !== undefined && a.value === b.value && a.family === b.family)
  );
}

function sameStates(a: Packet["ctState"], b: Packet["ctState"]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Equal in everything a walk with footprint `f` depends on: the fields of `f`, every other
 * packet field but the per-branch ones, and the branch flags (not probability, path, steps,
 * recent updates, which the walk only extends).
 */
export function sameBranchState(x: WalkState, y: WalkState, f: number): boolean {
  const p = x.pkt;
  const q = y.pkt;
  if (p !== q) {
    if (
      (f & DPORT && p.dport !== q.dport) ||
      (f & DST && !sameIp(p.dst, q.dst)) ||
      (f & MARK && p.mark !== q.mark) ||
      (f & SPORT && p.sport !== q.sport) ||
      (f & SRC && !sameIp(p.src, q.src)) ||
      p.family !== q.family ||
      p.protocol !== q.protocol ||
      (f & IN_IFACE && p.inInterface !== q.inInterface) ||
      (f & OUT_IFACE && p.outInterface !== q.outInterface) ||
      (f & CONNMARK && p.connmark !== q.connmark) ||
      !sameStates(p.ctState, q.ctState) ||
      p.icmpType !== q.icmpType ||
      p.icmpCode !== q.icmpCode ||
      p.fragment !== q.fragment ||
      p.tcpFlags !== q.tcpFlags ||
      p.ctDirection !== q.ctDirection
    )
      return false;
    const o = p.ctOrig;
    const r = q.ctOrig;
    if (
      o !== r &&
      (o === undefined ||
        r === undefined ||
        o.sport !== r.sport ||
        o.dport !== r.dport ||
        !sameIp(o.src, r.src) ||
        !sameIp(o.dst, r.dst))
    )
      return false;
  }
  if (
    x.dnat !== y.dnat ||
    x.snat !== y.snat ||
    x.accepted !== y.accepted ||
    x.untracked !== y.untracked ||
    x.randomPort !== y.randomPort
  )
    return false;
  const v = x.ipvs;
  const w = y.ipvs;
  return (
    v === w ||
    (v !== undefined &&
      w !== undefined &&
      v.isIpvs === w.isIpvs &&
      sameIp(v.vaddr, w.vaddr) &&
      v.vport === w.vport &&
      v.vproto === w.vproto &&
      v.vdir === w.vdir)
  );
}
