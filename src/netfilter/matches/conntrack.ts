/**
 * `-m conntrack`: `--ctstate`, `--ctproto`, `--ctorig{src,dst}[port]`, `--ctrepl{src,dst}[port]`,
 * `--ctstatus`, `--ctdir`. Each option is negatable on its own (`! --ctstate RELATED`).
 *
 * The Packet carries the conntrack states that hold and, once translated, the original tuple.
 * Without `ctOrig` the connection is untranslated so far: the original tuple is the packet's own
 * and the reply tuple its mirror image.
 */
import type { CIDR, PortRange } from "../../net/index.js";
import { cidrContains } from "../../net/index.js";
import type { CtState, Negatable, Packet } from "../model.js";
import { DPORT, DST, SPORT, SRC, type FieldSet } from "../packet-fields.js";
import {
  fail,
  NEG_ARG,
  outcome,
  single,
  type MatchExtension,
  type ParsedOption,
} from "./extension.js";
import { formatCidrNoHost } from "./format-addr.js";
import { packetHasProtocol, protocolCanonical, protocolNumber } from "./protocol.js";
import {
  formatPortRange,
  parseAddressSpec,
  parseNameList,
  parsePortSpec,
  sortNames,
} from "./values.js";

export const CT_STATES: readonly CtState[] = [
  "INVALID",
  "NEW",
  "RELATED",
  "ESTABLISHED",
  "UNTRACKED",
  "SNAT",
  "DNAT",
];
export type CtStatus = "EXPECTED" | "SEEN_REPLY" | "ASSURED" | "CONFIRMED";
const CT_STATUSES: readonly CtStatus[] = ["EXPECTED", "SEEN_REPLY", "ASSURED", "CONFIRMED"];

export interface ConntrackMatch {
  readonly module: "conntrack";
  readonly ctstate?: Negatable<readonly CtState[]>;
  /** Protocol number. */
  readonly ctproto?: Negatable<number>;
  readonly ctorigsrc?: Negatable<CIDR>;
  readonly ctorigdst?: Negatable<CIDR>;
  readonly ctreplsrc?: Negatable<CIDR>;
  readonly ctrepldst?: Negatable<CIDR>;
  readonly ctorigsrcport?: Negatable<PortRange>;
  readonly ctorigdstport?: Negatable<PortRange>;
  readonly ctreplsrcport?: Negatable<PortRange>;
  readonly ctrepldstport?: Negatable<PortRange>;
  /** Empty list: `NONE`. */
  readonly ctstatus?: Negatable<readonly CtStatus[]>;
  readonly ctdir?: "ORIGINAL" | "REPLY";
}

const ADDR = ["ctorigsrc", "ctorigdst", "ctreplsrc", "ctrepldst"] as const;
const PORT = ["ctorigsrcport", "ctorigdstport", "ctreplsrcport", "ctrepldstport"] as const;

/**
 * A --ct*port number or range, read as a service (see PortForm): iptables 1.8.9 keeps the low
 * 16 bits of a larger number (checked on the kernel: `--ctorigdstport 70000` saves as 4464,
 * 65536 as 0).
 */
function parseCtPort(s: string, what: string): PortRange {
  return parsePortSpec(s, what, "keep", "service");
}

/**
 * libxt_conntrack prints a range whose high end is 0 as its low end alone (`5:0` saves as `5`,
 * though the kernel keeps 5..0, which matches no port).
 */
function formatCtPorts(r: PortRange): string {
  return r.to === 0 ? `${r.from}` : formatPortRange(r);
}

function neg<T>(o: ParsedOption, v: T): Negatable<T> {
  return { value: v, negated: o.negated };
}

function statusList(s: string): readonly CtStatus[] {
  // libxt_conntrack tries NONE first, by prefix like the rest (`n` is NONE); it sets no bit.
  const parts = s.split(",").filter((p) => p === "" || !"NONE".startsWith(p.toUpperCase()));
  if (parts.length === 0) return [];
  return parseNameList(parts.join(","), CT_STATUSES, "conntrack --ctstatus");
}

/** The packet's conntrack tuples (see the file comment). */
function tuples(p: Packet) {
  const orig = p.ctOrig ?? { src: p.src, dst: p.dst, sport: p.sport, dport: p.dport };
  return { orig, repl: { src: p.dst, dst: orig.src, sport: p.dport, dport: orig.sport } };
}

function packetStatuses(p: Packet): readonly CtStatus[] {
  const established = p.ctState.includes("ESTABLISHED");
  return established ? ["SEEN_REPLY", "ASSURED", "CONFIRMED"] : [];
}

/**
 * The fields the tuples' tests read: without `ctOrig` (an untranslated connection) the
 * original tuple is the packet's own and the reply tuple its mirror. State, status, direction
 * and protocol are always compared (packet-fields.ts).
 */
function conntrackReads(m: ConntrackMatch): FieldSet {
  let f = 0;
  if (m.ctorigsrc !== undefined || m.ctrepldst !== undefined) f |= SRC;
  if (m.ctorigdst !== undefined || m.ctreplsrc !== undefined) f |= DST;
  if (m.ctorigsrcport !== undefined || m.ctrepldstport !== undefined) f |= SPORT;
  if (m.ctorigdstport !== undefined || m.ctreplsrcport !== undefined) f |= DPORT;
  return f;
}

const OTHER_THAN_CTSTATE = [
  "ctproto",
  "ctorigsrc",
  "ctorigdst",
  "ctreplsrc",
  "ctrepldst",
  "ctorigsrcport",
  "ctorigdstport",
  "ctreplsrcport",
  "ctrepldstport",
  "ctstatus",
  "ctdir",
] as const;

/** `--ctstate S` alone (kube-proxy's only use): its states, else undefined. */
function ctstateOnly(m: ConntrackMatch): Negatable<readonly CtState[]> | undefined {
  if (m.ctstate === undefined) return undefined;
  for (const f of OTHER_THAN_CTSTATE) if (m[f] !== undefined) return undefined;
  return m.ctstate;
}

/** Whether one of `states` holds for the packet. */
function anyState(states: readonly CtState[], p: Packet): boolean {
  for (let i = 0; i < states.length; i++) if (p.ctState.includes(states[i]!)) return true;
  return false;
}

export const conntrackMatch: MatchExtension<ConntrackMatch> = {
  module: "conntrack",
  options: {
    "--ctstate": NEG_ARG,
    "--ctproto": NEG_ARG,
    "--ctorigsrc": NEG_ARG,
    "--ctorigdst": NEG_ARG,
    "--ctreplsrc": NEG_ARG,
    "--ctrepldst": NEG_ARG,
    "--ctorigsrcport": NEG_ARG,
    "--ctorigdstport": NEG_ARG,
    "--ctreplsrcport": NEG_ARG,
    "--ctrepldstport": NEG_ARG,
    "--ctstatus": NEG_ARG,
    "--ctdir": { args: 1, negatable: false },
  },
  build(options, env) {
    const o = single(options, "conntrack");
    if (o.size === 0) fail(`conntrack: at least one option is required`);
    const m: { -readonly [K in keyof ConntrackMatch]: ConntrackMatch[K] } = { module: "conntrack" };
    for (const opt of o.values()) {
      const a = opt.args[0] as string;
      const name = opt.name.slice(2);
      if (name === "ctstate")
        m.ctstate = neg(opt, parseNameList(a, CT_STATES, "conntrack --ctstate"));
      else if (name === "ctproto") {
        const n = protocolNumber(a);
        if (n === undefined || n === 0) fail(`conntrack: unknown protocol "${a}"`);
        m.ctproto = neg(opt, n);
      } else if ((ADDR as readonly string[]).includes(name))
        m[name as (typeof ADDR)[number]] = neg(
          opt,
          parseAddressSpec(a, env.family, `conntrack --${name}`, "aton"),
        );
      else if ((PORT as readonly string[]).includes(name))
        m[name as (typeof PORT)[number]] = neg(opt, parseCtPort(a, `conntrack --${name}`));
      else if (name === "ctstatus") m.ctstatus = neg(opt, statusList(a));
      else {
        const d = a.toUpperCase();
        if (d !== "ORIGINAL" && d !== "REPLY") fail(`conntrack: --ctdir: bad value "${a}"`);
        m.ctdir = d;
      }
    }
    return m;
  },
  format(m) {
    const out: string[] = [];
    const b = (n: { negated: boolean }): string => (n.negated ? "! " : "");
    if (m.ctstate) out.push(`${b(m.ctstate)}--ctstate ${sortNames(m.ctstate.value, CT_STATES)}`);
    if (m.ctproto) out.push(`${b(m.ctproto)}--ctproto ${m.ctproto.value}`);
    for (const k of ADDR) {
      const v = m[k];
      if (v) out.push(`${b(v)}--${k} ${formatCidrNoHost(v.value)}`);
    }
    for (const k of PORT) {
      const v = m[k];
      if (v) out.push(`${b(v)}--${k} ${formatCtPorts(v.value)}`);
    }
    if (m.ctstatus)
      out.push(
        `${b(m.ctstatus)}--ctstatus ${m.ctstatus.value.length === 0 ? "NONE" : sortNames(m.ctstatus.value, CT_STATUSES)}`,
      );
    if (m.ctdir) out.push(`--ctdir ${m.ctdir}`);
    return out.join(" ");
  },
  reads: conntrackReads,
  // Decided in place, without the tuples: the walks meet these rules on every branch.
  compile(m) {
    const only = ctstateOnly(m);
    if (only === undefined) return undefined;
    const states = only.value;
    const hit = only.negated ? 0 : 1;
    return (p) => (anyState(states, p) ? hit : 1 - hit);
  },
  evaluate(m, p) {
    const only = ctstateOnly(m);
    if (only !== undefined) return outcome(anyState(only.value, p) !== only.negated);
    const t = tuples(p);
    const ok = (n: Negatable<unknown> | undefined, v: () => boolean): boolean =>
      n === undefined || v() !== n.negated;
    const inPorts = (r: Negatable<PortRange> | undefined, port: number): boolean =>
      ok(
        r,
        () =>
          port >= (r as Negatable<PortRange>).value.from &&
          port <= (r as Negatable<PortRange>).value.to,
      );
    const statuses = packetStatuses(p);
    const reply = p.ctDirection === "REPLY";
    return outcome(
      ok(m.ctstate, () =>
        (m.ctstate as Negatable<readonly CtState[]>).value.some((s) => p.ctState.includes(s)),
      ) &&
        ok(m.ctproto, () =>
          packetHasProtocol(p.protocol, protocolCanonical(`${m.ctproto?.value}`) ?? ""),
        ) &&
        ok(m.ctorigsrc, () => cidrContains((m.ctorigsrc as Negatable<CIDR>).value, t.orig.src)) &&
        ok(m.ctorigdst, () => cidrContains((m.ctorigdst as Negatable<CIDR>).value, t.orig.dst)) &&
        ok(m.ctreplsrc, () => cidrContains((m.ctreplsrc as Negatable<CIDR>).value, t.repl.src)) &&
        ok(m.ctrepldst, () => cidrContains((m.ctrepldst as Negatable<CIDR>).value, t.repl.dst)) &&
        inPorts(m.ctorigsrcport, t.orig.sport) &&
        inPorts(m.ctorigdstport, t.orig.dport) &&
        inPorts(m.ctreplsrcport, t.repl.sport) &&
        inPorts(m.ctrepldstport, t.repl.dport) &&
        ok(m.ctstatus, () => {
          const want = (m.ctstatus as Negatable<readonly CtStatus[]>).value;
          return want.length === 0 ? statuses.length === 0 : want.some((s) => statuses.includes(s));
        }) &&
        (m.ctdir === undefined || (m.ctdir === "REPLY") === reply),
    );
  },
};
