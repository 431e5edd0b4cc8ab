/** `-j DNAT --to-destination RANGE [--random] [--persistent]` (nat table). */
import { DPORT, DST, SRC } from "../packet-fields.js";
import { hashesAddress } from "../trace/nat-choice.js";
import { fixedNatApply, translate } from "./nat-translation.js";
import { fail, FLAG, single } from "../matches/extension.js";
import type { TargetExtension } from "./extension.js";
import type { Target } from "./index.js";
import { formatNatRange, parseNatRange } from "./nat-range.js";

type Dnat = Extract<Target, { kind: "DNAT" }>;

export const dnatTarget: TargetExtension<Dnat> = {
  name: "DNAT",
  kind: "DNAT",
  tables: ["nat"],
  hooks: ["PREROUTING", "OUTPUT"],
  options: {
    "--to-destination": { args: 1, negatable: false },
    "--random": FLAG,
    "--persistent": FLAG,
  },
  build(options, env) {
    const o = single(options, "DNAT");
    const to = o.get("--to-destination");
    if (to === undefined) fail(`DNAT: you must specify --to-destination`);
    return {
      kind: "DNAT",
      to: parseNatRange(to.args[0] as string, env, "DNAT --to-destination"),
      random: o.has("--random"),
      persistent: o.has("--persistent"),
    };
  },
  format: (t, family) =>
    `--to-destination ${formatNatRange(t.to, family)}${t.random ? " --random" : ""}${t.persistent ? " --persistent" : ""}`,
  // An address range is chosen by a hash of the source (trace/nat-choice.ts).
  touches: (t) => DST | DPORT | (hashesAddress(t.to) ? SRC : 0),
  // kube-proxy's `--to-destination IP:PORT`: one address and one port, the same for every
  // packet with ports (nat-choice.ts: neither a hash nor a random draw, nothing read); the
  // mapping is data too, for the depth-first walk's layout.
  compile(t) {
    const { ipFrom, ipTo, ports } = t.to;
    if (t.random || ipFrom === undefined || ports === undefined || ports.from !== ports.to)
      return undefined;
    if (ipTo !== undefined && ipTo.value !== ipFrom.value) return undefined;
    return fixedNatApply(
      { kind: "nat", manip: "dst", ip: ipFrom, port: ports.from, randomPort: undefined },
      (p, env) => dnatTarget.apply(t, p, env),
    );
  },
  apply: (t, p, env) =>
    translate(
      t.to,
      "dst",
      { persistent: t.persistent, random: t.random, randomFully: false },
      p,
      env.flow,
    ),
};
