/** The match evaluation the tracer uses by default: the match registry's. */
import type { MatchEvaluator } from "./rule-match.js";
import { TraceError } from "./walk.js";

// Replaced by the registry's evaluateMatch once src/netfilter/registry.ts lands.
export const defaultMatchEvaluator: MatchEvaluator = (m) => {
  throw new TraceError(`match module "${m.module}" cannot be evaluated yet`);
};
