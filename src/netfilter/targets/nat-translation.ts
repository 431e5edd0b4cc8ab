/**
 * What DNAT, SNAT and MASQUERADE share: the translation of the first packet of a connection to
 * an address and port of a range, as the kernel chooses them (trace/nat-choice.ts), and what
 * that choice read of the packet's source (for the flow cache, trace/flow-reads.ts).
 */
import type { IPFamily } from "../../net/index.js";
import type { FlowReads, Packet } from "../model.js";
import { READS_SPORT, READS_SPORT_CLASS, READS_SRC } from "../packet-fields.js";
import {
  hashesAddress,
  hasPorts,
  natRangeChoice,
  type NatChoiceOptions,
} from "../trace/nat-choice.js";
import type { TargetApply, TargetEffect } from "./extension.js";
import type { NatRange } from "./index.js";

type Nat = Extract<TargetEffect, { kind: "nat" }>;

/**
 * The `nat` effect of translating `packet`'s `manip` side into `range`. Where the kernel
 * draws the port at random (`--random`, `--random-fully`, an SNAT port outside its range),
 * the packet shows its own port, or the range's first, and `randomPort` says so
 * (docs/trace.md). `flow` is told what of the source the choice depended on.
 */
export function translate(
  range: NatRange,
  manip: "dst" | "src",
  opts: NatChoiceOptions,
  packet: Packet,
  flow: FlowReads | undefined,
): Nat {
  if (flow !== undefined) noteReads(flow, range, manip, opts.random || opts.randomFully, packet);
  const choice = natRangeChoice(range, packet, manip, opts);
  if (choice.kind === "exact")
    return { kind: "nat", manip, ip: choice.ip, port: choice.port, randomPort: undefined };
  return {
    kind: "nat",
    manip,
    ip: choice.ip,
    port: range.ports?.from ?? (manip === "dst" ? packet.dport : packet.sport),
    randomPort: choice.ports,
  };
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

/**
 * Whether a NAT target that maps to one address of `family` and one port gives every packet the
 * same mapping: a packet of that family with ports (nat-choice.ts: neither a hash nor a random
 * draw, nothing read). The compiled target (`fixedNatApply`) and the depth-first walk's flat
 * layout (trace/dense-rules.ts) both ask this.
 */
export function fixedNatHolds(p: Packet, family: IPFamily): boolean {
  return p.family === family && hasPorts(p.protocol);
}

/** A compiled NAT target that carries its fixed mapping as data (see `fixedNatOf`). */
interface FixedNatApply extends TargetApply {
  readonly fixedNat: Nat;
}

/**
 * The compiled form of a NAT target whose mapping is `effect` for every packet `fixedNatHolds`
 * for, and `otherwise`'s for the rest. The mapping is also data (`fixedNatOf`), so the
 * depth-first walk can apply it from numbers in its layout without calling this.
 */
export function fixedNatApply(effect: Nat, otherwise: TargetApply): TargetApply {
  const family = effect.ip.family;
  const apply: TargetApply = (p, env) => (fixedNatHolds(p, family) ? effect : otherwise(p, env));
  return Object.assign(apply, { fixedNat: effect });
}

/** The fixed mapping of a compiled target made by `fixedNatApply`, else undefined. */
export function fixedNatOf(apply: TargetApply | undefined): Nat | undefined {
  return (apply as Partial<FixedNatApply> | undefined)?.fixedNat;
}
