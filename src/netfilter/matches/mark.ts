/** `-m mark [!] --mark VALUE[/MASK]`: `(nfmark & mask) == value`. */
import { MARK } from "../packet-fields.js";
import type { Negatable } from "../model.js";
import { fail, NEG_ARG, outcome, single, type MatchExtension } from "./extension.js";
import { formatMarkMask, parseMarkMask, type MarkMask } from "./values.js";

export interface MarkMatch {
  readonly module: "mark";
  readonly mark: Negatable<MarkMask>;
}

export const markMatch: MatchExtension<MarkMatch> = {
  module: "mark",
  options: { "--mark": NEG_ARG },
  build(options) {
    const o = single(options, "mark").get("--mark");
    if (o === undefined) fail(`mark: "--mark" is required`);
    return {
      module: "mark",
      mark: { value: parseMarkMask(o.args[0] as string, "mark --mark"), negated: o.negated },
    };
  },
  format: (m) => `${m.mark.negated ? "! " : ""}--mark ${formatMarkMask(m.mark.value)}`,
  reads: () => MARK,
  compile(m) {
    const { value, mask } = m.mark.value;
    const negated = m.mark.negated;
    return (p) => (((p.mark & mask) >>> 0 === value) !== negated ? 1 : 0);
  },
  evaluate: (m, p) =>
    outcome(((p.mark & m.mark.value.mask) >>> 0 === m.mark.value.value) !== m.mark.negated),
};
