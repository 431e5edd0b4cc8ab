/**
 * `-m set [!] --match-set NAME DIR[,DIR...]` (DIR is `src` or `dst`, one per set dimension).
 * The key handed to `ctx.ipsetTest` has one `endpoint` part per direction flag: the address and
 * port on that side of the packet; the set's type picks which of the two each dimension uses.
 */
import { DPORT, DST, OUTSIDE, SPORT, SRC } from "../packet-fields.js";
import type { IpsetKey } from "../model.js";
import { fail, outcome, single, type MatchExtension } from "./extension.js";

export interface SetMatch {
  readonly module: "set";
  readonly name: string;
  readonly flags: readonly ("src" | "dst")[];
  readonly negated: boolean;
}

export const setMatch: MatchExtension<SetMatch> = {
  module: "set",
  options: { "--match-set": { args: 2, negatable: true } },
  aliases: { "--set": "--match-set" },
  build(options) {
    const o = single(options, "set").get("--match-set");
    if (o === undefined) fail(`set: "--match-set" is required`);
    const name = o.args[0] as string;
    if (name.length === 0 || name.length > 31) fail(`set: invalid set name "${name}"`);
    const parts = (o.args[1] as string).split(",");
    if (parts.length > 6) fail(`set: too many binding flags in "${o.args[1]}"`);
    const flags = parts.map((f) => {
      if (f !== "src" && f !== "dst")
        fail(`set: you must specify (the comma separated list of) 'src' or 'dst', got "${f}"`);
      return f;
    });
    return { module: "set", name, flags, negated: o.negated };
  },
  format: (m) => `${m.negated ? "! " : ""}--match-set ${m.name} ${m.flags.join(",")}`,
  reads: (m) => {
    let f = OUTSIDE;
    for (const d of m.flags) f |= d === "src" ? SRC | SPORT : DST | DPORT;
    return f;
  },
  evaluate(m, p, ctx) {
    const key: IpsetKey = m.flags.map((f) =>
      f === "src"
        ? { kind: "endpoint", ip: p.src, protocol: p.protocol, port: p.sport }
        : { kind: "endpoint", ip: p.dst, protocol: p.protocol, port: p.dport },
    );
    return outcome((ctx.ipsetTest(m.name, key) ?? false) !== m.negated);
  },
};
