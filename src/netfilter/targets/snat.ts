/** `-j SNAT --to-source RANGE [--random] [--random-fully] [--persistent]` (nat table). */
import { DST, SPORT, SRC } from "../packet-fields.js";
import { hashesAddress } from "../trace/nat-choice.js";
import { translate } from "./nat-translation.js";
import { fail, FLAG, single } from "../matches/extension.js";
import type { TargetExtension } from "./extension.js";
import type { Target } from "./index.js";
import { formatNatRange, parseNatRange } from "./nat-range.js";

type Snat = Extract<Target, { kind: "SNAT" }>;

export const snatTarget: TargetExtension<Snat> = {
  name: "SNAT",
  kind: "SNAT",
  tables: ["nat"],
  hooks: ["POSTROUTING", "INPUT"],
  options: {
    "--to-source": { args: 1, negatable: false },
    "--random": FLAG,
    "--random-fully": FLAG,
    "--persistent": FLAG,
  },
  build(options, env) {
    const o = single(options, "SNAT");
    const to = o.get("--to-source");
    if (to === undefined) fail(`SNAT: you must specify --to-source`);
    return {
      kind: "SNAT",
      to: parseNatRange(to.args[0] as string, env, "SNAT --to-source"),
      random: o.has("--random"),
      randomFully: o.has("--random-fully"),
      persistent: o.has("--persistent"),
    };
  },
  format: (t, family) =>
    `--to-source ${formatNatRange(t.to, family)}${t.random ? " --random" : ""}${t.randomFully ? " --random-fully" : ""}${t.persistent ? " --persistent" : ""}`,
  // An address range is chosen by a hash of the source seeded with the destination.
  touches: (t) => SRC | SPORT | (hashesAddress(t.to) ? DST : 0),
  sourcePorts: (t) => t.to.ports,
  apply: (t, p, env) =>
    translate(
      t.to,
      "src",
      { persistent: t.persistent, random: t.random, randomFully: t.randomFully },
      p,
      env.flow,
    ),
};
