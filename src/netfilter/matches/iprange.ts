/** `-m iprange [!] --src-range A-B [!] --dst-range A-B` (inclusive address ranges). */
import { DST, SRC } from "../packet-fields.js";
import type { IPAddress } from "../../net/index.js";
import type { Negatable } from "../model.js";
import { fail, NEG_ARG, outcome, single, type MatchExtension } from "./extension.js";
import { formatAddr } from "./format-addr.js";
import { parseIPOf } from "./values.js";

export interface AddressRange {
  readonly from: IPAddress;
  readonly to: IPAddress;
}

export interface IprangeMatch {
  readonly module: "iprange";
  readonly srcRange?: Negatable<AddressRange>;
  readonly dstRange?: Negatable<AddressRange>;
}

function parseRange(s: string, family: "IPv4" | "IPv6", what: string): AddressRange {
  const dash = s.indexOf("-");
  const from = parseIPOf(dash === -1 ? s : s.slice(0, dash), family, what);
  const to = dash === -1 ? from : parseIPOf(s.slice(dash + 1), family, what);
  return { from, to };
}

function inRange(r: Negatable<AddressRange> | undefined, a: IPAddress): boolean {
  if (r === undefined) return true;
  const inside =
    a.family === r.value.from.family &&
    a.value >= r.value.from.value &&
    a.value <= r.value.to.value;
  return inside !== r.negated;
}

export const iprangeMatch: MatchExtension<IprangeMatch> = {
  module: "iprange",
  options: { "--src-range": NEG_ARG, "--dst-range": NEG_ARG },
  build(options, env) {
    const o = single(options, "iprange");
    const s = o.get("--src-range");
    const d = o.get("--dst-range");
    if (s === undefined && d === undefined)
      fail(`iprange: at least one of --src-range or --dst-range is required`);
    return {
      module: "iprange",
      ...(s && {
        srcRange: {
          value: parseRange(s.args[0] as string, env.family, "iprange --src-range"),
          negated: s.negated,
        },
      }),
      ...(d && {
        dstRange: {
          value: parseRange(d.args[0] as string, env.family, "iprange --dst-range"),
          negated: d.negated,
        },
      }),
    };
  },
  format(m) {
    const out: string[] = [];
    const f = (name: string, r: Negatable<AddressRange> | undefined): void => {
      if (r)
        out.push(
          `${r.negated ? "! " : ""}${name} ${formatAddr(r.value.from)}-${formatAddr(r.value.to)}`,
        );
    };
    f("--src-range", m.srcRange);
    f("--dst-range", m.dstRange);
    return out.join(" ");
  },
  reads: (m) => (m.srcRange !== undefined ? SRC : 0) | (m.dstRange !== undefined ? DST : 0),
  evaluate: (m, p) => outcome(inRange(m.srcRange, p.src) && inRange(m.dstRange, p.dst)),
};
