/**
 * `-m addrtype [!] --src-type T,... [!] --dst-type T,... [--limit-iface-in|--limit-iface-out]`.
 * The kernel asks the routing table for the address's one type; the node's view of that comes
 * from `ctx.addrType` (limited to the packet's input or output interface when asked).
 */
import { DST, IN_IFACE, OUT_IFACE, SRC } from "../packet-fields.js";
import type { IPAddress } from "../../net/index.js";
import type { AddrType, EvalContext, Negatable } from "../model.js";
import { fail, FLAG, NEG_ARG, outcome, single, type MatchExtension } from "./extension.js";
import { parseNameList, sortNames } from "./values.js";

export const ADDR_TYPES: readonly AddrType[] = [
  "UNSPEC",
  "UNICAST",
  "LOCAL",
  "BROADCAST",
  "ANYCAST",
  "MULTICAST",
  "BLACKHOLE",
  "UNREACHABLE",
  "PROHIBIT",
  "THROW",
  "NAT",
  "XRESOLVE",
];

export interface AddrtypeMatch {
  readonly module: "addrtype";
  readonly srcType?: Negatable<readonly AddrType[]>;
  readonly dstType?: Negatable<readonly AddrType[]>;
  readonly limitIfaceIn?: boolean;
  readonly limitIfaceOut?: boolean;
}

export const addrtypeMatch: MatchExtension<AddrtypeMatch> = {
  module: "addrtype",
  options: {
    "--src-type": NEG_ARG,
    "--dst-type": NEG_ARG,
    "--limit-iface-in": FLAG,
    "--limit-iface-out": FLAG,
  },
  build(options, env) {
    const o = single(options, "addrtype");
    const s = o.get("--src-type");
    const d = o.get("--dst-type");
    if (s === undefined && d === undefined)
      fail(`addrtype: you must specify --src-type or --dst-type`);
    if (o.has("--limit-iface-in") && o.has("--limit-iface-out"))
      fail(`addrtype: you can't specify both --limit-iface-in and --limit-iface-out`);
    if (env.family === "IPv6") {
      // xt_addrtype refuses these for IPv6 (addrtype_mt_checkentry_v1).
      const bad = ["BLACKHOLE", "BROADCAST", "PROHIBIT", "THROW", "NAT", "XRESOLVE"];
      for (const t of [s, d]) {
        const list =
          t === undefined ? [] : parseNameList(t.args[0] as string, ADDR_TYPES, "addrtype");
        const b = list.find((x) => bad.includes(x));
        if (b !== undefined) fail(`addrtype: ${b} matching is not supported for IPv6`);
      }
    }
    return {
      module: "addrtype",
      ...(s && {
        srcType: {
          value: parseNameList(s.args[0] as string, ADDR_TYPES, "addrtype --src-type"),
          negated: s.negated,
        },
      }),
      ...(d && {
        dstType: {
          value: parseNameList(d.args[0] as string, ADDR_TYPES, "addrtype --dst-type"),
          negated: d.negated,
        },
      }),
      ...(o.has("--limit-iface-in") && { limitIfaceIn: true }),
      ...(o.has("--limit-iface-out") && { limitIfaceOut: true }),
    };
  },
  format(m) {
    const out: string[] = [];
    if (m.srcType)
      out.push(
        `${m.srcType.negated ? "! " : ""}--src-type ${sortNames(m.srcType.value, ADDR_TYPES)}`,
      );
    if (m.dstType)
      out.push(
        `${m.dstType.negated ? "! " : ""}--dst-type ${sortNames(m.dstType.value, ADDR_TYPES)}`,
      );
    if (m.limitIfaceIn) out.push("--limit-iface-in");
    if (m.limitIfaceOut) out.push("--limit-iface-out");
    return out.join(" ");
  },
  allowedHooks(m) {
    if (m.limitIfaceIn) return ["PREROUTING", "INPUT", "FORWARD"];
    if (m.limitIfaceOut) return ["FORWARD", "OUTPUT", "POSTROUTING"];
    return undefined;
  },
  reads: (m) =>
    (m.srcType !== undefined ? SRC : 0) |
    (m.dstType !== undefined ? DST : 0) |
    (m.limitIfaceIn ? IN_IFACE : 0) |
    (m.limitIfaceOut ? OUT_IFACE : 0),
  evaluate(m, p, ctx) {
    const iface = m.limitIfaceIn ? p.inInterface : m.limitIfaceOut ? p.outInterface : undefined;
    const limit = iface === "" ? undefined : iface;
    return outcome(
      typeHolds(m.srcType, p.src, limit, ctx) && typeHolds(m.dstType, p.dst, limit, ctx),
    );
  },
};

/** Whether `ip`'s type is one of `t`'s (or not, negated); no `t`: holds. (No closure per packet.) */
function typeHolds(
  t: Negatable<readonly AddrType[]> | undefined,
  ip: IPAddress,
  iface: string | undefined,
  ctx: EvalContext,
): boolean {
  return t === undefined || t.value.includes(ctx.addrType(ip, iface)) !== t.negated;
}
