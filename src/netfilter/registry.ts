/**
 * Every iptables extension kube-netsim models, one object per module. The rule parser looks
 * modules and targets up here; an unknown one is an error that names it, never skipped.
 */
import type { IPFamily, PortRange } from "../net/index.js";
import type { EvalContext, L4Protocol, MatchOutcome, Packet } from "./model.js";
import type { FieldSet } from "./packet-fields.js";
import type { MatchCheck, MatchExtension, RecentRecord } from "./matches/extension.js";
import type { Match, MatchModule } from "./matches/index.js";
import { addrtypeMatch } from "./matches/addrtype.js";
import { commentMatch } from "./matches/comment.js";
import { connmarkMatch } from "./matches/connmark.js";
import { conntrackMatch } from "./matches/conntrack.js";
import { icmpMatch } from "./matches/icmp.js";
import { icmp6Match } from "./matches/icmp6.js";
import { iprangeMatch } from "./matches/iprange.js";
import { ipvsMatch } from "./matches/ipvs.js";
import { limitMatch } from "./matches/limit.js";
import { markMatch } from "./matches/mark.js";
import { multiportMatch } from "./matches/multiport.js";
import { nfacctMatch } from "./matches/nfacct.js";
import { physdevMatch } from "./matches/physdev.js";
import { recentMatch } from "./matches/recent.js";
import { sctpMatch } from "./matches/sctp.js";
import { setMatch } from "./matches/set.js";
import { stateMatch } from "./matches/state.js";
import { statisticMatch } from "./matches/statistic.js";
import { tcpMatch } from "./matches/tcp.js";
import { udpMatch } from "./matches/udp.js";
import type { Target } from "./targets/index.js";
import type { TargetApply, TargetEffect, TargetEnv, TargetExtension } from "./targets/extension.js";
import { acceptTarget, dropTarget, returnTarget } from "./targets/verdicts.js";
import { rejectTarget } from "./targets/reject.js";
import { dnatTarget } from "./targets/dnat.js";
import { snatTarget } from "./targets/snat.js";
import { masqueradeTarget } from "./targets/masquerade.js";
import { markTarget } from "./targets/mark.js";
import { connmarkTarget } from "./targets/connmark.js";
import { logTarget } from "./targets/log.js";
import { nflogTarget } from "./targets/nflog.js";
import { notrackTarget } from "./targets/notrack.js";
import { ctTarget } from "./targets/ct.js";

export type MatchExtensions = {
  readonly [K in MatchModule]: MatchExtension<Extract<Match, { module: K }>>;
};

export const MATCH_EXTENSIONS: MatchExtensions = {
  tcp: tcpMatch,
  udp: udpMatch,
  sctp: sctpMatch,
  icmp: icmpMatch,
  icmp6: icmp6Match,
  multiport: multiportMatch,
  comment: commentMatch,
  conntrack: conntrackMatch,
  state: stateMatch,
  mark: markMatch,
  connmark: connmarkMatch,
  addrtype: addrtypeMatch,
  statistic: statisticMatch,
  recent: recentMatch,
  set: setMatch,
  physdev: physdevMatch,
  iprange: iprangeMatch,
  nfacct: nfacctMatch,
  limit: limitMatch,
  ipvs: ipvsMatch,
};

/** The extension of a `-m` word, or undefined for a module kube-netsim does not model. */
export function matchExtension(module: string): MatchExtension<Match> | undefined {
  return Object.hasOwn(MATCH_EXTENSIONS, module)
    ? MATCH_EXTENSIONS[module as MatchModule]
    : undefined;
}

export const TARGET_EXTENSIONS: readonly TargetExtension<Target>[] = [
  acceptTarget,
  dropTarget,
  returnTarget,
  rejectTarget,
  dnatTarget,
  snatTarget,
  masqueradeTarget,
  markTarget,
  connmarkTarget,
  logTarget,
  nflogTarget,
  notrackTarget,
  ctTarget,
];

const targetsByName = new Map<string, TargetExtension<Target>>(
  TARGET_EXTENSIONS.map((t) => [t.name, t]),
);

/**
 * iptables' target extensions (v1.8.9) that kube-netsim does not model. `-j NAME` with one of
 * them reads as a jump to a chain, as for any other name, but the error then names the target
 * rather than a missing chain.
 */
export const UNMODELLED_TARGETS: ReadonlySet<string> = new Set([
  "AUDIT",
  "CHECKSUM",
  "CLASSIFY",
  "CLUSTERIP",
  "CONNSECMARK",
  "DNPT",
  "DSCP",
  "ECN",
  "HL",
  "HMARK",
  "IDLETIMER",
  "LED",
  "NETMAP",
  "NFQUEUE",
  "RATEEST",
  "REDIRECT",
  "SECMARK",
  "SET",
  "SNPT",
  "SYNPROXY",
  "TCPMSS",
  "TCPOPTSTRIP",
  "TEE",
  "TOS",
  "TPROXY",
  "TRACE",
  "TTL",
]);

/** The extension of a `-j` word, or undefined when the word names a chain. */
export function targetExtension(name: string): TargetExtension<Target> | undefined {
  return targetsByName.get(name);
}

/**
 * A match instance or target that names no extension: only a rule built in code (not parsed)
 * can hold one. A programmer's error, named.
 */
export class UnknownExtensionError extends Error {
  constructor(what: "match" | "target", name: string) {
    super(`${what} "${name}" is not modelled by kube-netsim (src/netfilter/registry.ts)`);
    this.name = "UnknownExtensionError";
  }
}

/** The extension of a match instance; an instance of no known module is an error naming it. */
export function extensionOf(m: Match): MatchExtension<Match> {
  const ext = matchExtension(m.module);
  if (ext === undefined) throw new UnknownExtensionError("match", `${m.module}`);
  return ext;
}

/** The kernel's verdict for one match instance. */
export function evaluateMatch(m: Match, packet: Packet, ctx: EvalContext): MatchOutcome {
  return extensionOf(m).evaluate(m, packet, ctx);
}

/** The packet fields a match instance reads (packet-fields.ts). */
export function matchReads(m: Match): FieldSet {
  return extensionOf(m).reads(m);
}

/**
 * The match's compiled form for the depth-first walk (MatchExtension.compile), or undefined
 * when it has none (the walk then evaluates it).
 */
export function compileMatch(m: Match): MatchCheck | undefined {
  return extensionOf(m).compile?.(m);
}

/** The transport protocol a match instance requires of the packets it matches, if any. */
export function matchProtocol(m: Match): L4Protocol | undefined {
  return extensionOf(m).protocol;
}

/** The one destination port a match instance can hold for, if there is one. */
export function matchDestinationPort(m: Match): number | undefined {
  return extensionOf(m).destinationPort?.(m);
}

/** The `recent` list a match instance adds the packet's address to, if any. */
export function matchRecords(m: Match): RecentRecord | undefined {
  return extensionOf(m).records?.(m);
}

/** The canonical `iptables-save` words after `-m MODULE`. */
export function formatMatchOptions(m: Match, family: IPFamily): string {
  return extensionOf(m).format(m, family);
}

const targetsByKind = new Map<string, TargetExtension<Target>>(
  TARGET_EXTENSIONS.map((t) => [t.kind, t]),
);

/**
 * The extension of a target; a jump (which the walks follow themselves) or a kind of no known
 * extension is an error naming it.
 */
export function targetExtensionOf<T extends Exclude<Target, { kind: "jump" }>>(
  t: T,
): TargetExtension<T> {
  const ext = targetsByKind.get(t.kind);
  if (ext === undefined) throw new UnknownExtensionError("target", `${t.kind}`);
  return ext as unknown as TargetExtension<T>;
}

/** What a target does to a packet (TargetExtension.apply). */
export function applyTarget(
  t: Exclude<Target, { kind: "jump" }>,
  packet: Packet,
  env: TargetEnv,
): TargetEffect {
  return targetExtensionOf(t).apply(t, packet, env);
}

/** A target's `apply` made ready for the depth-first walk (its compiled form, if it has one). */
export function compileTarget(t: Exclude<Target, { kind: "jump" }>): TargetApply {
  const ext = targetExtensionOf(t);
  return ext.compile?.(t) ?? ((packet, env) => ext.apply(t, packet, env));
}

/** The range a target maps the source port into, if it names one; a jump: none. */
export function targetSourcePorts(t: Target): PortRange | undefined {
  if (t.kind === "jump") return undefined;
  return targetExtensionOf(t).sourcePorts?.(t);
}

/** The packet fields a target reads or writes; a jump: none (packet-fields.ts). */
export function targetTouches(t: Target): FieldSet {
  return t.kind === "jump" ? 0 : targetExtensionOf(t).touches(t);
}

/** The canonical `iptables-save` words after `-j TARGET` (empty for a jump or a verdict). */
export function formatTargetOptions(t: Target, family: IPFamily): string {
  if (t.kind === "jump") return "";
  return targetExtensionOf(t).format(t, family);
}
