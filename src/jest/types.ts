/**
 * The matchers' TypeScript declarations, merged into jest's own: `expect` (what
 * `@jest/globals` and jest 30's `expect` use) and the global `jest.Matchers` (@types/jest).
 */
// Loads jest's `expect` types so the augmentation below has a module to merge into (kept in
// the emitted .d.ts, so a consumer's compiler loads them too).
/// <reference types="expect" preserve="true" />
import type { RuleSet } from "../netfilter/model.js";
import type { PolicyQuery } from "../policy/evaluate.js";
import type { RulesOptions } from "./rules.js";
import type { TruthTableOptions } from "./truth-table.js";

export interface KubeNetsimMatchers<R> {
  /** The received Cluster allows the connection (failure: the policy explanation). */
  toAllow(query: PolicyQuery): R;
  /** The received Cluster denies the connection (failure: the policy explanation). */
  toDeny(query: PolicyQuery): R;
  /** Some outcome of the received TraceResult delivers to `ip:port`. */
  toReach(destination: string): R;
  /** Every outcome is delivered, to exactly these `ip:port`s, each reached. */
  toReachOnly(destinations: readonly string[]): R;
  /** Every outcome is source-NATed. */
  toBeMasqueraded(): R;
  /** Every outcome is REJECT. */
  toBeRejected(): R;
  /** Every outcome is DROP. */
  toBeDropped(): R;
  /** The received Cluster's verdicts equal the upstream e2e `.`/`X` grid(s). */
  toMatchTruthTable(grid: string, options?: TruthTableOptions): R;
  /** The received iptables text (or RuleSet) equals `expected` semantically. */
  toEqualRules(expected: string | RuleSet, options?: RulesOptions): R;
}

declare module "expect" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends KubeNetsimMatchers<R> {}
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
    interface Matchers<R, T = {}> extends KubeNetsimMatchers<R> {}
  }
}
