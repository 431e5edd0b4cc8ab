/**
 * What the packet-changing targets compute, shared by both walks (walk.ts and fast-walk.ts) so
 * that they cannot drift apart: NAT mappings, MARK and CONNMARK arithmetic.
 */
import type { IPAddress } from "../../net/index.js";
import type { Packet } from "../model.js";
import type { Target } from "../targets/index.js";
import { primaryAddress } from "./addressing.js";
import type { NodeDataplane } from "./dataplane.js";

type Nat = Extract<Target, { kind: "DNAT" | "SNAT" | "MASQUERADE" }>;

/**
 * The address and port a NAT target maps the packet to: the destination for DNAT, the source
 * for SNAT and MASQUERADE (the outgoing interface's first address). A range maps to its first
 * address and port.
 */
export function natMapping(
  dp: NodeDataplane,
  target: Nat,
  pkt: Packet,
): { readonly ip: IPAddress; readonly port: number } {
  switch (target.kind) {
    case "DNAT":
      return { ip: target.to.ipFrom ?? pkt.dst, port: target.to.ports?.from ?? pkt.dport };
    case "SNAT":
      return { ip: target.to.ipFrom ?? pkt.src, port: target.to.ports?.from ?? pkt.sport };
    case "MASQUERADE":
      return {
        ip: primaryAddress(dp, pkt.outInterface, pkt.family) ?? pkt.src,
        port: target.toPorts?.from ?? pkt.sport,
      };
  }
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
