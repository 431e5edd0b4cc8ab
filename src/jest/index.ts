/**
 * `kube-netsim/jest`: matchers with explanations. Listing this entry in jest's
 * `setupFilesAfterEnv` registers them (on the global `expect`); `matchers` is there for
 * `expect.extend(matchers)` by hand (e.g. with `injectGlobals: false`).
 */
import { matchers } from "./matchers.js";

export { matchers } from "./matchers.js";
export type { KubeNetsimMatchers } from "./types.js";
export type { TruthTableOptions, TruthGrid } from "./truth-table.js";
export { parseTruthTable, formatTruthGrid } from "./truth-table.js";
export type { RulesOptions } from "./rules.js";
export { formatOutcomes } from "./trace.js";

interface Extendable {
  extend(m: typeof matchers): void;
}

const globalExpect = (globalThis as { expect?: Extendable }).expect;
if (globalExpect !== undefined && typeof globalExpect.extend === "function")
  globalExpect.extend(matchers);
