/**
 * The non-terminal and NAT statements beyond kube-proxy's own: `snat`, `redirect`, `log`,
 * `limit rate`, `reject with ...`, and counter values, in nft(8)'s syntax (nftables 1.0.6,
 * each form checked against `nft -f` / `nft list`). A keyword this model does not know is an
 * error naming it.
 */
import {
  LOG_FLAGS,
  LOG_LEVELS,
  NAT_FLAGS,
  type ByteUnit,
  type LogFlag,
  type LogLevel,
  type NatFlag,
  type NatTarget,
  type RateUnit,
  type RejectWith,
  type Statement,
} from "../model.js";
import { parseIP } from "../../../net/index.js";
import { formatRange, parseRange } from "../interval.js";
import type { Cursor, Token } from "./tokens.js";

/** ICMP codes `reject with` takes, per kind (nft's icmp_code, icmpv6_code, icmpx_code types). */
export const REJECT_TYPES: Readonly<Record<"icmp" | "icmpv6" | "icmpx", readonly string[]>> = {
  icmp: [
    "net-unreachable",
    "host-unreachable",
    "prot-unreachable",
    "port-unreachable",
    "net-prohibited",
    "host-prohibited",
    "admin-prohibited",
  ],
  icmpv6: [
    "no-route",
    "admin-prohibited",
    "addr-unreachable",
    "port-unreachable",
    "policy-fail",
    "reject-route",
  ],
  icmpx: ["port-unreachable", "admin-prohibited", "no-route", "host-unreachable"],
};

export function count(c: Cursor, t: Token, what: string): number {
  if (!/^[0-9]+$/.test(t.text)) throw c.error(t, `${what}: expected a number, found "${t.text}"`);
  return Number(t.text);
}

export function parseRejectWith(c: Cursor): RejectWith {
  const k = c.next("icmp, icmpv6, icmpx or tcp");
  if (k.text === "tcp") {
    c.expect("reset");
    return { kind: "tcp reset" };
  }
  if (k.text !== "icmp" && k.text !== "icmpv6" && k.text !== "icmpx")
    throw c.error(k, `reject with: unknown "${k.text}" (icmp, icmpv6, icmpx or tcp reset)`);
  c.accept("type");
  const t = c.next("an ICMP code");
  if (!REJECT_TYPES[k.text].includes(t.text))
    throw c.error(t, `reject with ${k.text}: unknown code "${t.text}"`);
  return { kind: k.text, type: t.text };
}

function port(c: Cursor, t: Token, text: string): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || n > 65535) throw c.error(t, `bad port "${text}"`);
  return n;
}

/** `from[-to]` ports. */
function ports(c: Cursor, t: Token, text: string): { port: number; portTo?: number } {
  const dash = text.indexOf("-");
  if (dash < 0) return { port: port(c, t, text) };
  const from = port(c, t, text.slice(0, dash));
  const to = port(c, t, text.slice(dash + 1));
  if (to < from) throw c.error(t, `port range "${text}" ends before it starts`);
  return { port: from, portTo: to };
}

/** `ADDR`, `ADDR-ADDR`, `ADDR:PORT[-PORT]`, `[V6]:PORT[-PORT]`, `[V6]-[V6]:PORT`. */
function natTarget(c: Cursor, t: Token): NatTarget {
  const text = t.text;
  let addrPart = text;
  let portPart: string | undefined;
  const bracket = /^(\[[^\]]+\](?:-\[[^\]]+\])?)(?::(.+))?$/.exec(text);
  if (bracket !== null) {
    addrPart = (bracket[1] as string).replace(/[[\]]/g, "");
    portPart = bracket[2];
  } else if (!text.includes("::") && text.split(":").length === 2) {
    [addrPart, portPart] = text.split(":") as [string, string];
  }
  if (addrPart.includes("/")) {
    // A prefix is the range of its addresses (nft lists a range that is one this way).
    const r = parseRange(addrPart);
    if (r === undefined) throw c.error(t, `bad NAT address "${text}"`);
    addrPart = `${formatRange({ lo: r.range.lo, hi: r.range.lo }, r.family)}-${formatRange({ lo: r.range.hi, hi: r.range.hi }, r.family)}`;
  }
  const [address, addressTo, extra] = addrPart.split("-");
  if (address === undefined || address === "" || extra !== undefined || addressTo === "")
    throw c.error(t, `bad NAT address "${text}"`);
  if (
    parseIP(address, "strict") === undefined ||
    (addressTo !== undefined && parseIP(addressTo, "strict") === undefined)
  )
    throw c.error(t, `bad NAT address "${text}"`);
  return {
    address,
    ...(addressTo !== undefined ? { addressTo } : {}),
    ...(portPart !== undefined ? ports(c, t, portPart) : {}),
  };
}

function natFlags(c: Cursor): NatFlag[] {
  const out: NatFlag[] = [];
  const isFlag = (x: string | undefined): boolean => NAT_FLAGS.includes(x as NatFlag);
  while (isFlag(c.peekText())) {
    out.push(c.next("a flag").text as NatFlag);
    if (c.peekText() === "," && isFlag(c.peekText(1))) c.next(",");
    else break;
  }
  return out;
}

export function parseSnat(c: Cursor): Statement {
  let family: "ip" | "ip6" | undefined;
  if (c.peekText() === "ip" || c.peekText() === "ip6")
    family = c.next("family").text as "ip" | "ip6";
  c.expect("to");
  const to = natTarget(c, c.next("an address"));
  return {
    kind: "snat",
    ...(family !== undefined ? { family } : {}),
    to,
    flags: natFlags(c),
  };
}

export function parseRedirect(c: Cursor): Statement {
  if (!c.accept("to")) return { kind: "redirect", flags: natFlags(c) };
  const t = c.next(":port");
  const text = t.text.startsWith(":") ? t.text.slice(1) : t.text;
  return { kind: "redirect", ...ports(c, t, text), flags: natFlags(c) };
}

function logFlags(c: Cursor, out: LogFlag[]): void {
  const k = c.next("a log flag");
  switch (k.text) {
    case "all":
      out.push("tcp sequence", "tcp options", "ip options", "skuid", "ether");
      return;
    case "tcp":
      for (;;) {
        const f = c.next("sequence or options");
        if (f.text !== "sequence" && f.text !== "options")
          throw c.error(f, `log flags tcp: unknown "${f.text}" (sequence, options)`);
        out.push(`tcp ${f.text}`);
        if (!c.accept(",")) return;
      }
    case "ip":
      c.expect("options");
      out.push("ip options");
      return;
    case "skuid":
    case "ether":
      out.push(k.text);
      return;
    default:
      throw c.error(k, `log flags: unknown "${k.text}" (all, tcp, ip, skuid, ether)`);
  }
}

/** `at`: the `log` keyword (errors about the option combination point there). */
export function parseLog(c: Cursor, at: Token): Statement {
  let prefix: string | undefined;
  let group: number | undefined;
  let level: LogLevel | undefined;
  const flags: LogFlag[] = [];
  for (;;) {
    const k = c.peek();
    if (k === undefined || k.kind !== "word") break;
    if (k.text === "prefix") {
      c.next("prefix");
      const s = c.next("a quoted prefix");
      if (s.kind !== "string") throw c.error(s, `log prefix: expected a quoted string`);
      prefix = s.text;
    } else if (k.text === "group") {
      c.next("group");
      group = count(c, c.next("a group number"), "log group");
    } else if (k.text === "level") {
      c.next("level");
      const l = c.next("a log level");
      if (!LOG_LEVELS.includes(l.text as LogLevel))
        throw c.error(l, `log level: unknown "${l.text}" (${LOG_LEVELS.join(", ")})`);
      level = l.text as LogLevel;
    } else if (k.text === "flags") {
      c.next("flags");
      logFlags(c, flags);
    } else if (k.text === "snaplen" || k.text === "queue-threshold") {
      throw c.error(k, `unsupported log option "${k.text}"`);
    } else break;
  }
  if (level === "audit" && (prefix !== undefined || group !== undefined || flags.length > 0))
    throw c.error(at, "log level audit doesn't support any further options");
  if (group !== undefined && (level !== undefined || flags.length > 0))
    throw c.error(at, "log: group excludes level and flags");
  return {
    kind: "log",
    ...(prefix !== undefined ? { prefix } : {}),
    ...(group !== undefined ? { group } : {}),
    ...(level !== undefined ? { level } : {}),
    flags: LOG_FLAGS.filter((f) => flags.includes(f)),
  };
}

const RATE_UNITS = new Set(["second", "minute", "hour", "day", "week"]);
const BYTE_FACTOR: Readonly<Record<ByteUnit, bigint>> = {
  bytes: 1n,
  kbytes: 1024n,
  mbytes: 1024n * 1024n,
};
const PERIOD_NS: Readonly<Record<RateUnit, bigint>> = {
  second: 1_000_000_000n,
  minute: 60_000_000_000n,
  hour: 3_600_000_000_000n,
  day: 86_400_000_000_000n,
  week: 604_800_000_000_000n,
};
const BYTE_UNITS = new Set(["bytes", "kbytes", "mbytes"]);

/** `limit rate [over] N/UNIT [burst N packets]` or `limit rate [over] N BYTES/UNIT [burst N BYTES]`. */
export function parseLimit(c: Cursor): Statement {
  c.expect("rate");
  const over = c.accept("over");
  const first = c.next("a rate");
  let rateText: string;
  let perText: string;
  let bytesUnit: ByteUnit | undefined;
  let at = first;
  if (first.text.includes("/")) [rateText, perText] = first.text.split("/") as [string, string];
  else {
    rateText = first.text;
    at = c.next("UNIT/PERIOD");
    const [unit, per] = at.text.split("/");
    if (!BYTE_UNITS.has(unit ?? "") || per === undefined)
      throw c.error(at, `limit rate: expected bytes|kbytes|mbytes/PERIOD, found "${at.text}"`);
    bytesUnit = unit as ByteUnit;
    perText = per;
  }
  if (!/^[0-9]+$/.test(rateText))
    throw c.error(first, `limit rate: expected a number, found "${rateText}"`);
  const rate = Number(rateText);
  if (!RATE_UNITS.has(perText))
    throw c.error(at, `limit rate: unknown period "${perText}" (second, minute, hour, day, week)`);
  let burst: number | undefined;
  let burstUnit: ByteUnit | undefined;
  if (c.accept("burst")) {
    const b = c.next("a burst");
    burst = count(c, b, "limit burst");
    const u = c.next(bytesUnit === undefined ? "packets" : "a byte unit");
    if (bytesUnit === undefined) {
      if (u.text !== "packets")
        throw c.error(u, `limit burst: expected "packets", found "${u.text}"`);
      if (burst === 0) throw c.error(b, "packet limit burst must be > 0");
    } else {
      if (!BYTE_UNITS.has(u.text))
        throw c.error(u, `limit burst: expected bytes, kbytes or mbytes, found "${u.text}"`);
      burstUnit = u.text as ByteUnit;
    }
  }
  if (rate === 0) throw c.error(first, "limit rate must be > 0");
  if (bytesUnit !== undefined) {
    // The kernel's nft_limit_init: the bucket (rate + burst) * period in ns must fit in 64 bits.
    const bytes = BigInt(rate) * BYTE_FACTOR[bytesUnit];
    const burstBytes = BigInt(burst ?? 0) * BYTE_FACTOR[burstUnit ?? "bytes"];
    if ((bytes + burstBytes) * PERIOD_NS[perText as RateUnit] > 0xffffffffffffffffn)
      throw c.error(first, "limit: Value too large for defined data type (the kernel refuses it)");
  }
  return {
    kind: "limit",
    over,
    rate,
    ...(bytesUnit !== undefined ? { bytesUnit } : {}),
    per: perText as RateUnit,
    ...(burst !== undefined ? { burst } : {}),
    ...(burstUnit !== undefined ? { burstUnit } : {}),
  };
}
