/**
 * Whether a rule's conditions hold for a packet: the standard options (-p -s -d -i -o -f, the
 * matches' own helper), then each `-m` match in order through the match registry. A random `statistic` match makes
 * the rule hold with a probability; several multiply. Any failing condition wins.
 */
import { ruleMatchesStandard } from "../matches/standard.js";
import type { EvalContext, Match, MatchOutcome, Packet, Rule } from "../model.js";

export type MatchEvaluator = (match: Match, packet: Packet, ctx: EvalContext) => MatchOutcome;

const MATCH: MatchOutcome = { kind: "match" };
const NO_MATCH: MatchOutcome = { kind: "no-match" };

export function ruleHolds(
  rule: Rule,
  packet: Packet,
  ctx: EvalContext,
  evaluate: MatchEvaluator,
): MatchOutcome {
  if (!ruleMatchesStandard(rule, packet)) return NO_MATCH;
  let probability = 1;
  for (const m of rule.matches) {
    // Comments always hold; kube-proxy puts one on nearly every rule.
    if (m.module === "comment") continue;
    const o = evaluate(m, packet, ctx);
    if (o.kind === "no-match") return NO_MATCH;
    if (o.kind === "branch") probability *= o.probability;
  }
  if (probability >= 1) return MATCH;
  if (probability <= 0) return NO_MATCH;
  return { kind: "branch", probability };
}
