/**
 * Rules compiled once per rule set into closures for the indexed walk: the same decision as
 * `ruleHolds` with the default match evaluator (rule-match.ts), as a number: 0 the rule does
 * not match, 1 it matches, anything between: it matches with that probability (statistic).
 * What is decided from the rule alone is decided here, once: `-s`/`-d` masks, which of the five
 * packet protocols `-p` accepts (and whether a match tests it again). Each match is its
 * extension's compiled form (`MatchExtension.compile`: comments drop out; kube-proxy's tcp,
 * udp, mark, `--ctstate` and statistic matches are decided in place), or its `evaluate`.
 * The naive walk keeps using `ruleHolds`, so the property tests compare the two.
 */
import { maskValue4, maskValue6, type CIDR, type IPAddress } from "../../net/index.js";
import { packetHasProtocol } from "../matches/protocol.js";
import { interfaceMatches } from "../matches/standard.js";
import { ALWAYS, constantOf } from "../matches/extension.js";
import type { EvalContext, L4Protocol, Match, MatchOutcome, Packet, Rule } from "../model.js";
import { compileMatch, evaluateMatch, matchProtocol } from "../registry.js";
import { matchFlowReads } from "./flow-reads.js";

/** 0: no match; 1: match; 0 < p < 1: matches with probability p. */
export type RuleMatcher = (packet: Packet, ctx: EvalContext) => number;

/** A rule's compiled condition, and the number it always gives when it reads no packet field. */
export interface CompiledCondition {
  readonly matcher: RuleMatcher;
  /** Defined when the rule holds with this probability for every packet (statistic, none). */
  readonly constant: number | undefined;
  /**
   * The rule's `-s` and `-d` when they are IPv4 prefixes, as numbers for `ipv4SourceHolds`
   * and `ipv4DestinationHolds` (the fast walk's flat layout tests them without a call), and
   * the rest of the condition without them.
   */
  readonly source: Ipv4Prefix | undefined;
  readonly destination: Ipv4Prefix | undefined;
  readonly rest: RuleMatcher;
  readonly restConstant: number | undefined;
}

/** An IPv4 `-s` or `-d` prefix: `network` and `mask` as unsigned 32-bit values. */
export interface Ipv4Prefix {
  readonly network: number;
  readonly mask: number;
  readonly negated: boolean;
}

/**
 * Whether a packet passes an IPv4 `-s` test (as standardOptionsHold: a packet of the other
 * family never does, negated or not), telling a recorded trace which source bits it consulted
 * (flow-reads.ts).
 */
export function ipv4SourceHolds(
  p: Packet,
  ctx: EvalContext,
  network: number,
  mask: number,
  negated: boolean,
): boolean {
  if (p.family !== "IPv4") return false;
  const a = p.src;
  if (ctx.flow !== undefined) ctx.flow.srcPrefix(a, network, Math.clz32(~mask));
  return (a.family === "IPv4" && (a.value & mask) >>> 0 === network) !== negated;
}

/** Whether a packet passes an IPv4 `-d` test (a packet of the other family never does). */
export function ipv4DestinationHolds(
  p: Packet,
  network: number,
  mask: number,
  negated: boolean,
): boolean {
  if (p.family !== "IPv4") return false;
  const a = p.dst;
  return (a.family === "IPv4" && (a.value & mask) >>> 0 === network) !== negated;
}

type Check = (packet: Packet, ctx: EvalContext) => number;

const L4: readonly L4Protocol[] = ["tcp", "udp", "sctp", "icmp", "icmpv6"];

function addressCheck(cidr: CIDR, negated: boolean, side: "src" | "dst"): Check {
  // Same as standardOptionsHold: a rule of the other family never matches, negated or not.
  // One closure per side: a fixed property read stays monomorphic.
  if (cidr.family === "IPv4") {
    const mask = maskValue4(cidr.prefix);
    const net = cidr.network.value as number;
    return side === "src"
      ? (p, ctx) => (ipv4SourceHolds(p, ctx, net, mask, negated) ? 1 : 0)
      : (p) => (ipv4DestinationHolds(p, net, mask, negated) ? 1 : 0);
  }
  const mask6 = maskValue6(cidr.prefix);
  const net6 = cidr.network.value as bigint;
  const inside6 = (ip: IPAddress): boolean => ip.family === "IPv6" && (ip.value & mask6) === net6;
  return side === "src"
    ? (p, ctx) => {
        if (ctx.flow !== undefined && p.family === "IPv6")
          ctx.flow.srcPrefix(p.src, net6, cidr.prefix);
        return p.family !== "IPv6" || inside6(p.src) === negated ? 0 : 1;
      }
    : (p) => (p.family !== "IPv6" || inside6(p.dst) === negated ? 0 : 1);
}

function protocolCheck(canonical: string, negated: boolean): Check {
  const ok = L4.filter((l4) => packetHasProtocol(l4, canonical) !== negated);
  if (ok.length === L4.length) return () => 1;
  if (ok.length === 0) return () => 0;
  if (ok.length === 1) {
    const only = ok[0];
    return (p) => (p.protocol === only ? 1 : 0);
  }
  return (p) => (ok.includes(p.protocol) ? 1 : 0);
}

/** A match outcome as a compiled check gives it (in [0, 1], as `compile`'s contract says). */
function probabilityOf(o: MatchOutcome): number {
  return o.kind === "match" ? 1 : o.kind === "no-match" ? 0 : clamp(o.probability);
}

/**
 * A match's check: its extension's compiled form, or its `evaluate`; told to the flow cache
 * what it read (flow-reads.ts). Undefined for a match that always holds.
 */
function matchCheck(m: Match): Check | undefined {
  const compiled = compileMatch(m);
  if (compiled === ALWAYS) return undefined;
  const check: Check = compiled ?? ((p, ctx) => probabilityOf(evaluateMatch(m, p, ctx)));
  const reads = matchFlowReads(m);
  if (reads === 0) return check;
  return (p, ctx) => {
    ctx.flow?.reads(reads, p);
    return check(p, ctx);
  };
}

/**
 * Whether the rule's `-p` need not be tested: it is positive, accepts one transport protocol,
 * and the rule's first match that tests anything requires that protocol anyway (`-p tcp -m
 * tcp`, kube-proxy's DNAT and service rules). The first: a match before it could consult a
 * `recent` list, which the `-p` test would have spared.
 */
function protocolImplied(rule: Rule): boolean {
  const protocol = rule.protocol;
  if (protocol === undefined || protocol.negated) return false;
  const accepted = L4.filter((l4) => packetHasProtocol(l4, protocol.value));
  if (accepted.length !== 1) return false;
  const first = rule.matches.find((m) => compileMatch(m) !== ALWAYS);
  return first !== undefined && matchProtocol(first) === accepted[0];
}

/** The compiled form of `ruleHolds(rule, packet, ctx, evaluateMatch)`. */
export function compileRuleMatcher(rule: Rule): RuleMatcher {
  return compileRuleCondition(rule).matcher;
}

/**
 * `compileRuleMatcher`, and the rule's probability when no check reads the packet: the walk
 * then reads the number instead of calling the matcher (a service's statistic rules, a rule
 * with no condition).
 */
export function compileRuleCondition(rule: Rule): CompiledCondition {
  const checks: Check[] = [];
  const { source, destination, protocol, inInterface, outInterface, fragment } = rule;
  if (source !== undefined) checks.push(addressCheck(source.value, source.negated, "src"));
  const ipv4Source = ipv4Prefix(source);
  const ipv4Destination = ipv4Prefix(destination);
  if (destination !== undefined)
    checks.push(addressCheck(destination.value, destination.negated, "dst"));
  // The checks the layout's numbers stand for: the IPv4 `-s` and `-d` (the first checks).
  const sourceCheck = ipv4Source !== undefined ? checks[0] : undefined;
  const destinationCheck = ipv4Destination !== undefined ? checks[checks.length - 1] : undefined;
  const numbered = (sourceCheck !== undefined ? 1 : 0) + (destinationCheck !== undefined ? 1 : 0);
  // A match that repeats the protocol test: one closure fewer. A service's rules are out of
  // the processor's caches when a new flow meets them, and each closure is a load.
  if (protocol !== undefined && !protocolImplied(rule))
    checks.push(protocolCheck(protocol.value, protocol.negated));
  if (inInterface !== undefined) {
    const { value, negated } = inInterface;
    checks.push((p) => (interfaceMatches(value, p.inInterface) === negated ? 0 : 1));
  }
  if (outInterface !== undefined) {
    const { value, negated } = outInterface;
    checks.push((p) => (interfaceMatches(value, p.outInterface) === negated ? 0 : 1));
  }
  if (fragment !== undefined) {
    const negated = fragment.negated;
    checks.push((p) => (p.fragment === negated ? 0 : 1));
  }
  // Standard options first, then the matches in order: the first failing one decides (a
  // failing match after a statistic one still fails the rule, as in ruleHolds).
  const standard = checks.length;
  let matchesFixed = true;
  let product = 1;
  for (const m of rule.matches) {
    const c = matchCheck(m);
    if (c === undefined) continue;
    const constant = constantOf(c);
    if (constant === undefined) matchesFixed = false;
    else product *= constant;
    checks.push(c);
  }
  const fixed = (standardChecks: number): number | undefined =>
    matchesFixed && standardChecks === 0 ? clamp(product) : undefined;
  const matcher = checksMatcher(checks);
  return {
    matcher,
    constant: fixed(standard),
    source: ipv4Source,
    destination: ipv4Destination,
    rest:
      numbered === 0
        ? matcher
        : checksMatcher(checks.filter((c) => c !== sourceCheck && c !== destinationCheck)),
    restConstant: fixed(standard - numbered),
  };
}

function ipv4Prefix(o: Rule["source"]): Ipv4Prefix | undefined {
  return o !== undefined && o.value.family === "IPv4"
    ? {
        network: o.value.network.value as number,
        mask: maskValue4(o.value.prefix),
        negated: o.negated,
      }
    : undefined;
}

/**
 * The checks in order as one matcher. Every check gives a number in [0, 1] (a compiled match by
 * its contract, the others by construction), so a lone check is the matcher as it is.
 */
function checksMatcher(checks: readonly Check[]): RuleMatcher {
  if (checks.length === 0) return () => 1;
  if (checks.length === 1) return checks[0]!;
  if (checks.length === 2) {
    const [a, b] = checks as [Check, Check];
    return (p, ctx) => {
      const x = a(p, ctx);
      if (x === 0) return 0;
      const y = b(p, ctx);
      return y === 0 ? 0 : clamp(x * y);
    };
  }
  if (checks.length === 3) {
    const [a, b, c] = checks as [Check, Check, Check];
    return (p, ctx) => {
      const x = a(p, ctx);
      if (x === 0) return 0;
      const y = b(p, ctx);
      if (y === 0) return 0;
      const z = c(p, ctx);
      return z === 0 ? 0 : clamp(x * y * z);
    };
  }
  return (p, ctx) => {
    let probability = 1;
    for (let i = 0; i < checks.length; i++) {
      const v = checks[i]!(p, ctx);
      if (v === 0) return 0;
      probability *= v;
    }
    return clamp(probability);
  };
}

/** As ruleHolds: a product of at least 1 is a match, at most 0 no match. */
function clamp(p: number): number {
  return p >= 1 ? 1 : p <= 0 ? 0 : p;
}
