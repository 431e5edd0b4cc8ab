/** `-m nfacct --nfacct-name NAME`: counts and always matches; the object must exist. */
import { ARG, fail, outcome, single, type MatchExtension } from "./extension.js";

export interface NfacctMatch {
  readonly module: "nfacct";
  readonly name: string;
}

export const nfacctMatch: MatchExtension<NfacctMatch> = {
  module: "nfacct",
  options: { "--nfacct-name": ARG },
  build(options) {
    const n = single(options, "nfacct").get("--nfacct-name");
    if (n === undefined) fail(`nfacct: "--nfacct-name" is required`);
    const name = n.args[0] as string;
    if (name.length === 0 || name.length > 31) fail(`nfacct: invalid name "${name}"`);
    return { module: "nfacct", name };
  },
  format: (m) => `--nfacct-name ${m.name}`,
  // The kernel refuses to load a rule naming a missing object; a model that has one anyway
  // cannot have come from a kernel, so it does not match.
  // The node's nfacct objects do not change during a trace.
  reads: () => 0,
  evaluate: (m, _p, ctx) => outcome(ctx.nfacctExists(m.name)),
};
