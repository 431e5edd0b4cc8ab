/** `-m connmark [!] --mark VALUE[/MASK]`: `(ctmark & mask) == value`. */
import { CONNMARK } from "../packet-fields.js";
import type { Negatable } from "../model.js";
import { fail, NEG_ARG, outcome, single, type MatchExtension } from "./extension.js";
import { formatMarkMask, parseMarkMask, type MarkMask } from "./values.js";

export interface ConnmarkMatch {
  readonly module: "connmark";
  readonly mark: Negatable<MarkMask>;
}

export const connmarkMatch: MatchExtension<ConnmarkMatch> = {
  module: "connmark",
  options: { "--mark": NEG_ARG },
  build(options) {
    const o = single(options, "connmark").get("--mark");
    if (o === undefined) fail(`connmark: "--mark" is required`);
    return {
      module: "connmark",
      mark: { value: parseMarkMask(o.args[0] as string, "connmark --mark"), negated: o.negated },
    };
  },
  format: (m) => `${m.mark.negated ? "! " : ""}--mark ${formatMarkMask(m.mark.value)}`,
  reads: () => CONNMARK,
  evaluate: (m, p) =>
    outcome(((p.connmark & m.mark.value.mask) >>> 0 === m.mark.value.value) !== m.mark.negated),
};
