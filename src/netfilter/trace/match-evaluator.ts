/** The match evaluation the tracer uses by default: the match registry's. */
import { evaluateMatch } from "../registry.js";
import type { MatchEvaluator } from "./rule-match.js";

export const defaultMatchEvaluator: MatchEvaluator = evaluateMatch;
