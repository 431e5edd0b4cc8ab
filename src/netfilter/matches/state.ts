/** `-m state [!] --state LIST` (the older spelling of conntrack's `--ctstate`). */
import type { CtState, Negatable } from "../model.js";
import { fail, NEG_ARG, outcome, single, type MatchExtension } from "./extension.js";
import { parseNameList, sortNames } from "./values.js";

const STATES: readonly CtState[] = ["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED"];

export interface StateMatch {
  readonly module: "state";
  readonly state: Negatable<readonly CtState[]>;
}

export const stateMatch: MatchExtension<StateMatch> = {
  module: "state",
  options: { "--state": NEG_ARG },
  build(options) {
    const s = single(options, "state").get("--state");
    if (s === undefined) fail(`state: "--state" is required`);
    return {
      module: "state",
      state: {
        value: parseNameList(s.args[0] as string, STATES, "state --state"),
        negated: s.negated,
      },
    };
  },
  format: (m) => `${m.state.negated ? "! " : ""}--state ${sortNames(m.state.value, STATES)}`,
  // The conntrack state is always compared.
  reads: () => 0,
  evaluate: (m, p) => outcome(m.state.value.some((s) => p.ctState.includes(s)) !== m.state.negated),
};
