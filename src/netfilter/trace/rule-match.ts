/**
 * Whether a rule's conditions hold for a packet: the standard options (-p -s -d -i -o -f), then
 * each `-m` match in order through the match registry. A random `statistic` match makes the
 * rule hold with a probability; several multiply. Any failing condition wins.
 */
import { cidrContains } from "../../net/index.js";
import { packetHasProtocol } from "../matches/protocol.js";
import { interfaceMatches } from "../matches/standard.js";
import type { EvalContext, Match, MatchOutcome, Packet, Rule } from "../model.js";

export type MatchEvaluator = (match: Match, packet: Packet, ctx: EvalContext) => MatchOutcome;

/**
 * The standard options, with the same meaning as matches/standard.ts's `ruleMatchesStandard`
 * (a rule of the other family never matches) but without a closure per option: this runs for
 * every rule the walk visits.
 */
export function standardOptionsHold(rule: Rule, packet: Packet): boolean {
  const { source, destination, protocol, inInterface, outInterface, fragment } = rule;
  if (source !== undefined) {
    if (source.value.family !== packet.family) return false;
    if (cidrContains(source.value, packet.src) === source.negated) return false;
  }
  if (destination !== undefined) {
    if (destination.value.family !== packet.family) return false;
    if (cidrContains(destination.value, packet.dst) === destination.negated) return false;
  }
  if (
    protocol !== undefined &&
    packetHasProtocol(packet.protocol, protocol.value) === protocol.negated
  )
    return false;
  if (
    inInterface !== undefined &&
    interfaceMatches(inInterface.value, packet.inInterface) === inInterface.negated
  )
    return false;
  if (
    outInterface !== undefined &&
    interfaceMatches(outInterface.value, packet.outInterface) === outInterface.negated
  )
    return false;
  if (fragment !== undefined && packet.fragment === fragment.negated) return false;
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
