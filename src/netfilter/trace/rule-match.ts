/**
 * Whether a rule's conditions hold for a packet: the standard options (-p -s -d -i -o -f),
 * then each `-m` match in order through the match registry. A random `statistic` match makes
 * the rule hold with a probability; several multiply. Any failing condition wins.
 */
import { cidrContains } from "../../net/index.js";
import type { EvalContext, Match, MatchOutcome, Negatable, Packet, Rule } from "../model.js";

export type MatchEvaluator = (match: Match, packet: Packet, ctx: EvalContext) => MatchOutcome;

const PROTOCOL_NUMBERS: Readonly<Record<string, string>> = {
  "1": "icmp",
  "6": "tcp",
  "17": "udp",
  "58": "icmpv6",
  "132": "sctp",
  "ipv6-icmp": "icmpv6",
  icmp6: "icmpv6",
};

function protocolHolds(p: Negatable<string>, packet: Packet): boolean {
  const name = p.value.toLowerCase();
  const hit =
    name === "all" || name === "0" || (PROTOCOL_NUMBERS[name] ?? name) === packet.protocol;
  return hit !== p.negated;
}

/** iptables interface names: a trailing `+` matches any name with that prefix. */
export function interfaceMatches(pattern: string, name: string): boolean {
  if (pattern.endsWith("+")) return name.startsWith(pattern.slice(0, -1));
  return name === pattern;
}

export function standardOptionsHold(rule: Rule, packet: Packet): boolean {
  if (rule.protocol !== undefined && !protocolHolds(rule.protocol, packet)) return false;
  if (rule.source !== undefined && cidrContains(rule.source.value, packet.src) === rule.source.negated)
    return false;
  if (
    rule.destination !== undefined &&
    cidrContains(rule.destination.value, packet.dst) === rule.destination.negated
  )
    return false;
  if (
    rule.inInterface !== undefined &&
    interfaceMatches(rule.inInterface.value, packet.inInterface) === rule.inInterface.negated
  )
    return false;
  if (
    rule.outInterface !== undefined &&
    interfaceMatches(rule.outInterface.value, packet.outInterface) === rule.outInterface.negated
  )
    return false;
  if (rule.fragment !== undefined && packet.fragment === rule.fragment.negated) return false;
  return true;
}

const MATCH: MatchOutcome = { kind: "match" };
const NO_MATCH: MatchOutcome = { kind: "no-match" };

export function ruleHolds(
  rule: Rule,
  packet: Packet,
  ctx: EvalContext,
  evaluate: MatchEvaluator,
): MatchOutcome {
  if (!standardOptionsHold(rule, packet)) return NO_MATCH;
  let probability = 1;
  for (const m of rule.matches) {
    const o = evaluate(m, packet, ctx);
    if (o.kind === "no-match") return NO_MATCH;
    if (o.kind === "branch") probability *= o.probability;
  }
  if (probability >= 1) return MATCH;
  if (probability <= 0) return NO_MATCH;
  return { kind: "branch", probability };
}
