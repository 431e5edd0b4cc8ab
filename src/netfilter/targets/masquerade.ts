/** `-j MASQUERADE [--to-ports P[-Q]] [--random] [--random-fully]` (nat table). */
import { DST_ROUTE, OUT_IFACE, SPORT, SRC } from "../packet-fields.js";
import { translate } from "./nat-translation.js";
import { FLAG, single } from "../matches/extension.js";
import { DROPPED, type TargetExtension } from "./extension.js";
import type { Target } from "./index.js";
import { parsePortRangeDash, requirePortProtocol } from "./nat-range.js";

type Masquerade = Extract<Target, { kind: "MASQUERADE" }>;

export const masqueradeTarget: TargetExtension<Masquerade> = {
  name: "MASQUERADE",
  kind: "MASQUERADE",
  tables: ["nat"],
  hooks: ["POSTROUTING"],
  options: {
    "--to-ports": { args: 1, negatable: false },
    "--random": FLAG,
    "--random-fully": FLAG,
  },
  build(options, env) {
    const o = single(options, "MASQUERADE");
    const p = o.get("--to-ports");
    if (p !== undefined) requirePortProtocol(env, "MASQUERADE --to-ports");
    return {
      kind: "MASQUERADE",
      ...(p && { toPorts: parsePortRangeDash(p.args[0] as string, "MASQUERADE --to-ports") }),
      random: o.has("--random"),
      randomFully: o.has("--random-fully"),
    };
  },
  format(t) {
    const out: string[] = [];
    if (t.toPorts)
      out.push(
        `--to-ports ${t.toPorts.from}${t.toPorts.to !== t.toPorts.from ? `-${t.toPorts.to}` : ""}`,
      );
    if (t.random) out.push("--random");
    if (t.randomFully) out.push("--random-fully");
    return out.join(" ");
  },
  // The address is the outgoing interface's that holds the route's next hop (IPv6: the
  // longest prefix shared with the destination): addressing.ts `masqueradeSource`. The
  // destination is read through that alone (env.masqueradeSource).
  touches: () => SRC | SPORT | OUT_IFACE | DST_ROUTE,
  sourcePorts: (t) => t.toPorts,
  apply(t, p, env) {
    const ip = env.masqueradeSource(p.outInterface, p.dst);
    // No address to masquerade to: the kernel drops the packet.
    if (ip === undefined) return DROPPED;
    const range =
      t.toPorts !== undefined
        ? { ipFrom: ip, ipTo: ip, ports: t.toPorts }
        : { ipFrom: ip, ipTo: ip };
    return translate(
      range,
      "src",
      { persistent: false, random: t.random, randomFully: t.randomFully },
      p,
      env.flow,
    );
  },
};
