/**
 * What the packet-changing targets compute, shared by both walks (walk.ts and fast-walk.ts) so
 * that they cannot drift apart: NAT mappings, MARK and CONNMARK arithmetic.
 */
import type { IPAddress, PortRange } from "../../net/index.js";
import type { FlowReads, Packet } from "../model.js";
import type { NatRange, Target } from "../targets/index.js";
import { masqueradeSource } from "./addressing.js";
import type { NodeDataplane } from "./dataplane.js";
import { READS_SPORT, READS_SPORT_CLASS, READS_SRC } from "./flow-reads.js";
import { hashesAddress, natRangeChoice } from "./nat-choice.js";

type Nat = Extract<Target, { kind: "DNAT" | "SNAT" | "MASQUERADE" }>;

/**
 * The address and port a NAT target maps the first packet of a connection to: the destination
 * for DNAT, the source for SNAT and MASQUERADE (the address addressing.ts
 * `masqueradeSource` picks; undefined when there is none, and the kernel drops the packet). Within a range, the kernel's choice (nat-choice.ts). Where the kernel draws the
 * port at random (`--random`, `--random-fully`, an SNAT port outside its range), the trace
 * shows the packet's port, or the range's first, and `randomPort` says so (docs/trace.md).
 * `flow` is told what of the source the choice depended on (flow-reads.ts).
 */
export function natMapping(
  dp: NodeDataplane,
  target: Nat,
  pkt: Packet,
  flow?: FlowReads,
): NatMapping | undefined {
  const manip = target.kind === "DNAT" ? "dst" : "src";
  let range: NatRange;
  if (target.kind === "MASQUERADE") {
    // Chosen from the outgoing interface and the route (both decided by the destination,
    // which the flow cache's key holds). No address: the kernel drops the packet.
    const ip = masqueradeSource(dp, pkt.outInterface, pkt.dst);
    if (ip === undefined) return undefined;
    range = {
      ipFrom: ip,
      ipTo: ip,
      ...(target.toPorts !== undefined ? { ports: target.toPorts } : {}),
    };
  } else range = target.to;
  const opts = {
    persistent: target.kind !== "MASQUERADE" && target.persistent,
    random: target.random,
    randomFully: target.kind !== "DNAT" && target.randomFully,
  };
  if (flow !== undefined) noteReads(flow, range, manip, opts.random || opts.randomFully, pkt);
  const choice = natRangeChoice(range, pkt, manip, opts);
  if (choice.kind === "exact") return { ip: choice.ip, port: choice.port, randomPort: undefined };
  return {
    ip: choice.ip,
    port: range.ports?.from ?? (manip === "dst" ? pkt.dport : pkt.sport),
    randomPort: choice.ports,
  };
}

export interface NatMapping {
  readonly ip: IPAddress;
  /** The port the trace shows. */
  readonly port: number;
  /** Set when the kernel draws the port at random from this range instead. */
  readonly randomPort: PortRange | undefined;
}

function noteReads(
  flow: FlowReads,
  range: NatRange,
  manip: "src" | "dst",
  random: boolean,
  pkt: Packet,
): void {
  const from = range.ipFrom;
  const several = hashesAddress(range);
  // An address range is chosen by a hash of the whole source address.
  if (several) flow.reads(READS_SRC, pkt);
  if (manip === "dst") return;
  // A random source port without a range is drawn from the port's class (sourcePorts says which).
  if (random) {
    if (range.ports === undefined) flow.reads(READS_SPORT_CLASS, pkt);
    return;
  }
  // An SNAT keeps a source that already lies in its range.
  if (from === undefined || several) flow.reads(READS_SRC, pkt);
  else flow.srcPrefix(pkt.src, from.value, from.family === "IPv4" ? 32 : 128);
  if (range.ports !== undefined) flow.reads(READS_SPORT, pkt);
}

export function markAfter(mark: number, target: Extract<Target, { kind: "MARK" }>): number {
  return ((mark & ~target.mask) ^ target.value) >>> 0;
}

/** The packet mark and connection mark after a CONNMARK target. */
export function connmarkAfter(
  mark: number,
  connmark: number,
  target: Extract<Target, { kind: "CONNMARK" }>,
): { readonly mark: number; readonly connmark: number } {
  if (target.op === "set")
    return { mark, connmark: ((connmark & ~target.mask) ^ target.value) >>> 0 };
  if (target.op === "save")
    return { mark, connmark: ((connmark & ~target.ctmask) ^ (mark & target.nfmask)) >>> 0 };
  return { mark: ((mark & ~target.nfmask) ^ (connmark & target.ctmask)) >>> 0, connmark };
}

type CtStates = Packet["ctState"];

/**
 * The last list extended per state, and the result: every branch of a packet extends the same
 * list, so they share one (the lists are never mutated).
 */
const extended = {
  DNAT: { from: undefined as CtStates | undefined, to: [] as CtStates },
  SNAT: { from: undefined as CtStates | undefined, to: [] as CtStates },
};

/** `states` with the conntrack state a NAT target adds. */
export function withNatState(states: CtStates, s: "DNAT" | "SNAT"): CtStates {
  if (states.includes(s)) return states;
  const last = extended[s];
  if (last.from !== states) {
    last.from = states;
    last.to = [...states, s];
  }
  return last.to;
}

export const UNTRACKED: CtStates = ["UNTRACKED"];
