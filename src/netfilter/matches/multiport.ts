/** `-m multiport [!] --sports|--dports|--ports P[,P:Q]...` (at most 15 ports, a range counts 2). */
import { DPORT, SPORT } from "../packet-fields.js";
import type { PortRange } from "../../net/index.js";
import type { Negatable } from "../model.js";
import { fail, NEG_ARG, outcome, single, type MatchExtension } from "./extension.js";
import { formatPortRange, parsePortSpec } from "./values.js";

export interface MultiportMatch {
  readonly module: "multiport";
  readonly sports?: Negatable<readonly PortRange[]>;
  readonly dports?: Negatable<readonly PortRange[]>;
  readonly ports?: Negatable<readonly PortRange[]>;
}

const PROTOCOLS = ["tcp", "udp", "udplite", "sctp", "dccp"];

function parseList(s: string): readonly PortRange[] {
  const out: PortRange[] = [];
  let slots = 0;
  for (const part of s.split(",")) {
    if (part === "") fail(`multiport: invalid port list "${s}"`);
    const r = parsePortSpec(part, "multiport");
    const colon = part.indexOf(":");
    if (colon !== -1) {
      // Unlike --dport, multiport wants both ends of a range, in increasing order (libxt_multiport).
      if (colon === 0 || colon === part.length - 1)
        fail(`multiport: invalid port/service "" specified`);
      if (r.from >= r.to) fail(`multiport: invalid portrange "${part}" specified`);
    }
    slots += r.from === r.to ? 1 : 2;
    out.push(r);
  }
  if (slots > 15) fail(`multiport: too many ports specified`);
  return out;
}

function inList(port: number, list: readonly PortRange[]): boolean {
  return list.some((r) => port >= r.from && port <= r.to);
}

export const multiportMatch: MatchExtension<MultiportMatch> = {
  module: "multiport",
  options: { "--sports": NEG_ARG, "--dports": NEG_ARG, "--ports": NEG_ARG },
  aliases: { "--source-ports": "--sports", "--destination-ports": "--dports" },
  build(options, env) {
    const p = env.protocol;
    if (p === undefined || p.negated || !PROTOCOLS.includes(p.value))
      fail("multiport needs `-p tcp', `-p udp', `-p udplite', `-p sctp' or `-p dccp'");
    const o = single(options, "multiport");
    if (o.size !== 1) fail(`multiport: exactly one of --sports, --dports, --ports is required`);
    const [opt] = [...o.values()] as [(typeof options)[number]];
    const value = { value: parseList(opt.args[0] as string), negated: opt.negated };
    const key = opt.name === "--sports" ? "sports" : opt.name === "--dports" ? "dports" : "ports";
    return { module: "multiport", [key]: value };
  },
  format(m) {
    const [name, v] = m.sports
      ? ["--sports", m.sports]
      : m.dports
        ? ["--dports", m.dports]
        : ["--ports", m.ports];
    if (v === undefined) return "";
    return `${v.negated ? "! " : ""}${name} ${v.value.map(formatPortRange).join(",")}`;
  },
  reads: (m) =>
    (m.sports !== undefined ? SPORT : 0) |
    (m.dports !== undefined ? DPORT : 0) |
    (m.ports !== undefined ? SPORT | DPORT : 0),
  evaluate(m, p) {
    if ((p.protocol !== "tcp" && p.protocol !== "udp" && p.protocol !== "sctp") || p.fragment)
      return outcome(false);
    if (m.sports) return outcome(inList(p.sport, m.sports.value) !== m.sports.negated);
    if (m.dports) return outcome(inList(p.dport, m.dports.value) !== m.dports.negated);
    if (m.ports)
      return outcome(
        (inList(p.sport, m.ports.value) || inList(p.dport, m.ports.value)) !== m.ports.negated,
      );
    return outcome(true);
  },
};
