/** Every matcher of `kube-netsim/jest`, by name, for `expect.extend`. */
import { toAllow, toDeny } from "./policy.js";
import { toEqualRules } from "./rules.js";
import { toBeDropped, toBeMasqueraded, toBeRejected, toReach, toReachOnly } from "./trace.js";
import { toMatchTruthTable } from "./truth-table.js";

export const matchers = {
  toAllow,
  toDeny,
  toReach,
  toReachOnly,
  toBeMasqueraded,
  toBeRejected,
  toBeDropped,
  toMatchTruthTable,
  toEqualRules,
};
