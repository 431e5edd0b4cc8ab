/**
 * The part of jest's matcher context the kit's matchers use. Declared here (rather than
 * imported from `expect`) so the matchers carry no dependency on a particular jest version:
 * jest 29 and 30 (and any `expect.extend` with these members) supply it.
 */
import type { Cluster } from "../model/cluster.js";
import type { CompiledPolicies } from "../policy/compiled.js";

export interface MatcherContextLike {
  readonly isNot?: boolean;
  readonly utils: {
    diff(
      a: unknown,
      b: unknown,
      options?: { aAnnotation?: string; bAnnotation?: string },
    ): string | null;
  };
}

export interface MatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/** A received value of the wrong kind: a failed expectation that says what was expected. */
export function wrongReceived(matcher: string, expected: string, received: unknown): MatcherResult {
  const got = received === null ? "null" : Array.isArray(received) ? "an array" : typeof received;
  return {
    pass: false,
    message: () => `${matcher}: the received value must be ${expected}; got ${got}`,
  };
}

/** An input error (bad query, unparsable rules) as a failed expectation with its message. */
export function inputFailure(matcher: string, err: unknown): MatcherResult {
  const text = err instanceof Error ? err.message : String(err);
  return { pass: false, message: () => `${matcher}: ${text}` };
}

/** A Cluster (loadCluster, cluster()) or its compiled policies: what the policy matchers take. */
export function isPolicySubject(x: unknown): x is Cluster | CompiledPolicies {
  if (typeof x !== "object" || x === null) return false;
  return "facts" in x || ("pods" in x && "networkPolicies" in x);
}
