/**
 * The packet fields a match reads or a target writes, as bits. The fields named here are the
 * ones that differ between the branches of one trace (addresses, ports, interfaces, marks);
 * everything else a match may read (family, protocol, conntrack state and direction, ICMP
 * type, fragment, TCP flags, the IPVS view) is the same on every branch that is compared, and
 * the walks always compare it (trace/walk-state.ts `sameBranchState`).
 *
 * The walkers ask the extensions (`MatchExtension.reads`, `TargetExtension.touches`) and
 * derive from these bits which table walks may be shared between branches (trace/footprint.ts)
 * and what the flow cache may leave out of its key (trace/flow-reads.ts).
 */

export const SRC = 1;
export const SPORT = 2;
export const DST = 4;
export const DPORT = 8;
export const IN_IFACE = 16;
export const OUT_IFACE = 32;
export const MARK = 64;
export const CONNMARK = 128;
/** Every per-branch field. */
export const ALL_FIELDS = 255;
/**
 * The destination read only through the node's answers for it: the address MASQUERADE takes
 * for the outgoing interface (`TargetEnv.masqueradeSource(outInterface, dst)`, which follows
 * the route's next hop). Two packets equal but for destinations with the same answer get the
 * same effect. Not one of ALL_FIELDS: a walk that does not compare those answers reads it as
 * DST (trace/footprint.ts).
 */
export const DST_ROUTE = 512;
/**
 * State outside the packet that may differ between two traces of the same packet (ipset
 * contents, `recent` lists, the IPVS scheduler's view): a trace that read it is never reused.
 */
export const OUTSIDE = 256;

/** A set of the bits above. */
export type FieldSet = number;

/*
 * What one trace consulted of its packet's source, for the flow cache (trace/flow-reads.ts):
 * the part of the packet its key may leave out.
 */
export const READS_SRC = 1;
export const READS_SPORT = 2;
/** Outcome may differ between traces of the same packet (ipset contents, IPVS, recent): never cache. */
export const READS_VOLATILE = 4;
/** Only the source port's class (trace/nat-choice.ts portClass): a random SNAT port's range. */
export const READS_SPORT_CLASS = 8;

/** The flow-cache bits of a match's `reads`: the destination is in the cache's key. */
export function flowReadsOf(fields: FieldSet): number {
  return (
    (fields & SRC ? READS_SRC : 0) |
    (fields & SPORT ? READS_SPORT : 0) |
    (fields & OUTSIDE ? READS_VOLATILE : 0)
  );
}
