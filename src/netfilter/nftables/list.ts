/**
 * `nft list table FAMILY NAME` as nft 1.0.6 prints it (spec §10, checked against the real nft):
 * nested blocks; sets and maps, then chains, in creation order; base chains with named
 * priorities and `policy accept;`; `meta mark` with `|`/`&`/`^` and 32-bit hex; one-element
 * anonymous sets without braces, larger ones sorted (address intervals merged); `, ` between
 * elements; `elements = { ... }` wrapped as nft wraps it. Elements of named sets print in model
 * order (the kernel's own order for hash sets is not stable).
 */
import { assertNever } from "../../util/assert-never.js";
import { canonicalIP } from "../../net/index.js";
import { goQuote } from "./go-quote.js";
import { canonicalIntervals, formatRange, parseRange } from "./interval.js";
import {
  BITWISE_SYMBOL,
  counterText,
  dnatTarget,
  limitText,
  logText,
  natFlagsText,
  redirectText,
  rejectWithText,
  verdictText,
} from "./knftables-text.js";
import type {
  BaseChainSpec,
  Chain,
  DataType,
  Expr,
  ByteUnit,
  Family,
  NamedSet,
  NatTarget,
  RejectWith,
  Rule,
  SetElement,
  Statement,
  Table,
  VerdictMapRef,
} from "./model.js";
import { match, value } from "./model.js";
import { formatNftTime } from "./time.js";

export function listTable(t: Table): string {
  const blocks: string[] = [];
  const updated = new Set<string>();
  for (const c of t.chains)
    for (const r of c.rules)
      for (const st of r.statements) if (st.kind === "set-update") updated.add(st.set);
  for (const s of t.sets) blocks.push(setBlock(s, updated.has(s.name)));
  for (const c of t.chains) blocks.push(chainBlock(t.family, c));
  const head = `table ${t.family} ${t.name} {\n${t.comment === undefined ? "" : `\tcomment ${goQuote(t.comment)}\n`}`;
  return `${head}${blocks.join("\n")}}\n`;
}

// ---- sets ----

/** What a value of this type prints as (canonical addresses, marks as 0x%08x). */
function canonicalAtom(type: DataType | undefined, text: string): string {
  switch (type) {
    case "ipv4_addr":
    case "ipv6_addr": {
      if (text.includes("/") || text.includes("-")) return canonicalIntervals([text])?.[0] ?? text;
      return canonicalIP(text, "strict") ?? text;
    }
    case "mark":
      return markHex(text);
    case "ifname":
      return `"${text}"`;
    case "inet_service":
      return String(Number(text));
    case "inet_proto":
    case "verdict":
    case undefined:
      return text;
    default:
      return assertNever(type);
  }
}

function markHex(text: string): string {
  const n = Number(text);
  return Number.isFinite(n) ? `0x${(n >>> 0).toString(16).padStart(8, "0")}` : text;
}

function elementCanonical(s: NamedSet, e: SetElement): string {
  let out = e.key.map((k, i) => canonicalAtom(s.keyType[i], k)).join(" . ");
  if (e.timeout !== undefined) out += ` timeout ${formatNftTime(e.timeout)}`;
  if (e.comment !== undefined) out += ` comment ${goQuote(e.comment)}`;
  if (e.value !== undefined)
    out += ` : ${e.value.kind === "verdict" ? verdictText(e.value.verdict) : canonicalAtom(s.valueType, e.value.text)}`;
  return out;
}

/** nft's calculate_delimiter: how many elements share a line, by key type. */
function perLine(s: NamedSet): number {
  if (s.keyType.length !== 1) return 1;
  switch (s.keyType[0]) {
    case "inet_proto":
    case "inet_service":
    case "mark":
      return 16;
    case "ipv4_addr":
      return 8;
    default:
      return 1;
  }
}

function elementsLine(s: NamedSet): string {
  const isInterval = s.flags.includes("interval");
  const items =
    isInterval && s.keyType.length === 1
      ? (canonicalIntervals(s.elements.map((e) => e.key[0] ?? "")) ??
        s.elements.map((e) => elementCanonical(s, e)))
      : s.elements.map((e) => elementCanonical(s, e));
  const n = perLine(s);
  let out = "{ ";
  items.forEach((item, i) => {
    if (i > 0) out += i % n === 0 ? ",\n\t\t\t     " : ", ";
    out += item;
  });
  return `${out} }`;
}

/** `updatedByRules`: a rule adds to it from the packet path, which gives it nft's default size. */
function setBlock(s: NamedSet, updatedByRules: boolean): string {
  const lines = [`\t${s.kind} ${s.name} {`];
  const key = s.keyType.join(" . ");
  lines.push(`\t\ttype ${s.valueType === undefined ? key : `${key} : ${s.valueType}`}`);
  if (s.flags.includes("dynamic") && updatedByRules) lines.push("\t\tsize 65535");
  if (s.flags.length > 0) lines.push(`\t\tflags ${s.flags.join(",")}`);
  if (s.timeout !== undefined) lines.push(`\t\ttimeout ${formatNftTime(s.timeout)}`);
  if (s.comment !== undefined) lines.push(`\t\tcomment ${goQuote(s.comment)}`);
  if (s.elements.length > 0) lines.push(`\t\telements = ${elementsLine(s)}`);
  lines.push("\t}");
  return lines.map((l) => `${l}\n`).join("");
}

// ---- chains ----

const STD_PRIORITIES: readonly { readonly name: string; readonly value: number }[] = [
  { name: "raw", value: -300 },
  { name: "mangle", value: -150 },
  { name: "dstnat", value: -100 },
  { name: "filter", value: 0 },
  { name: "security", value: 50 },
  { name: "srcnat", value: 100 },
];

/** nft's prio2str for the ip/ip6/inet families: a standard name within ±10, else the number. */
export function priorityText(b: BaseChainSpec): string {
  for (const p of STD_PRIORITIES) {
    if (p.name === "dstnat" && b.hook !== "prerouting") continue;
    if (p.name === "srcnat" && b.hook !== "postrouting") continue;
    const offset = b.priority - p.value;
    if (offset === 0) return p.name;
    if (Math.abs(offset) <= 10) return `${p.name} ${offset > 0 ? "+" : "-"} ${Math.abs(offset)}`;
  }
  return String(b.priority);
}

function chainBlock(family: Family, c: Chain): string {
  const lines = [`\tchain ${c.name} {`];
  if (c.comment !== undefined) lines.push(`\t\tcomment ${goQuote(c.comment)}`);
  if (c.base !== undefined)
    lines.push(
      `\t\ttype ${c.base.type} hook ${c.base.hook} priority ${priorityText(c.base)}; policy ${c.base.policy ?? "accept"};`,
    );
  for (const r of c.rules) lines.push(`\t\t${ruleCanonical(family, r)}`);
  lines.push("\t}");
  return lines.map((l) => `${l}\n`).join("");
}

export function ruleCanonical(family: Family, r: Rule): string {
  const body = withoutL4Dependency(r.statements, family)
    .map((s) => statementCanonical(family, s))
    .join(" ");
  return r.comment === undefined ? body : `${body} comment ${goQuote(r.comment)}`;
}

/** The data type a match's right-hand side is read as. */
function typeOf(e: Expr): DataType | undefined {
  switch (e.kind) {
    case "payload":
      if (e.field === "saddr" || e.field === "daddr")
        return e.protocol === "ip6" ? "ipv6_addr" : "ipv4_addr";
      return "inet_service";
    case "meta":
      return e.key === "l4proto"
        ? "inet_proto"
        : e.key === "mark"
          ? "mark"
          : e.key === "iifname" || e.key === "oifname"
            ? "ifname"
            : undefined;
    case "bitwise":
      return typeOf(e.left);
    case "ct":
      return e.key === "mark" ? "mark" : undefined;
    default:
      return undefined;
  }
}

/** Bit values of the ct state and ct status flags: nft lists flag lists in bit order. */
const CT_BITS: Readonly<Record<"state" | "status", Readonly<Record<string, number>>>> = {
  state: { invalid: 1, established: 2, related: 4, new: 8, untracked: 64 },
  status: {
    expected: 1,
    "seen-reply": 2,
    assured: 4,
    confirmed: 8,
    snat: 16,
    dnat: 32,
    dying: 512,
  },
};

function byCtBit(key: "state" | "status", items: readonly string[]): string[] {
  const bits = CT_BITS[key];
  return [...new Set(items)].sort((a, b) => (bits[a] ?? 1e9) - (bits[b] ?? 1e9));
}

/**
 * `ct state new,established` lists as `established,new` (bit order); negated, nft lists the
 * flags joined with ` | `; an anonymous set `{ new, invalid }` is sorted by value as well.
 */
function ctFlagsCanonical(
  key: "state" | "status",
  op: "==" | "!=",
  right: Expr,
): string | undefined {
  const neg = op === "!=" ? "!= " : "";
  if (right.kind === "value") {
    const items = byCtBit(key, right.text.split(/\s*,\s*/));
    return `${neg}${items.join(op === "!=" && items.length > 1 ? " | " : ",")}`;
  }
  if (right.kind === "set-literal") {
    const items = byCtBit(key, right.elements);
    return `${neg}${items.length === 1 ? (items[0] ?? "") : `{ ${items.join(", ")} }`}`;
  }
  return undefined;
}

function exprCanonical(e: Expr, type: DataType | undefined = undefined): string {
  switch (e.kind) {
    case "payload":
      return `${e.protocol} ${e.field}`;
    case "meta":
      return e.key === "iifname" || e.key === "oifname" ? e.key : `meta ${e.key}`;
    case "ct":
      return `ct ${e.key}`;
    case "fib":
      return `fib ${e.flag} ${e.result}`;
    case "numgen":
      return `numgen ${e.mode} mod ${e.mod}`;
    case "concat":
      return e.parts.map((p) => exprCanonical(p)).join(" . ");
    case "bitwise":
      return `${exprCanonical(e.left)} ${BITWISE_SYMBOL[e.op]} ${canonicalAtom(typeOf(e.left), e.right.text)}`;
    case "value":
      return type === "ifname"
        ? `"${e.text}"`
        : canonicalAtom(type, e.text).replace(/\s*,\s*/g, ",");
    case "set-literal":
      return setLiteralCanonical(e.elements, type);
    case "set-ref":
      return `@${e.name}`;
    default:
      return assertNever(e);
  }
}

function setLiteralCanonical(elements: readonly string[], type: DataType | undefined): string {
  let items: string[];
  const isAddr = type === "ipv4_addr" || type === "ipv6_addr";
  if (isAddr && elements.some((x) => x.includes("/") || x.includes("-"))) {
    items = canonicalIntervals(elements) ?? [...elements];
  } else if (isAddr) {
    const uniq = [...new Set(elements.map((x) => canonicalIP(x, "strict") ?? x))];
    items = uniq
      .map((x) => ({ x, r: parseRange(x)?.range.lo ?? 0n }))
      .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0))
      .map((a) => a.x);
  } else if (type === "inet_service") {
    items = [...new Set(elements.map(Number))].sort((a, b) => a - b).map(String);
  } else items = elements.map((x) => canonicalAtom(type, x));
  return items.length === 1 ? (items[0] ?? "") : `{ ${items.join(", ")} }`;
}

function vmapCanonical(m: VerdictMapRef): string {
  switch (m.kind) {
    case "set-ref":
      return `@${m.name}`;
    case "vmap-literal":
      return `{ ${m.entries.map((x) => `${x.key} : ${verdictText(x.verdict)}`).join(", ")} }`;
    default:
      return assertNever(m);
  }
}

function statementCanonical(family: Family, s: Statement): string {
  switch (s.kind) {
    case "match": {
      if (s.left.kind === "ct" && s.left.key !== "mark") {
        const flags = ctFlagsCanonical(s.left.key, s.op, s.right);
        if (flags !== undefined) return `ct ${s.left.key} ${flags}`;
      }
      const type = typeOf(s.left);
      const right = exprCanonical(s.right, type);
      if (s.left.kind === "bitwise") return `${exprCanonical(s.left)} ${s.op} ${right}`;
      return `${exprCanonical(s.left)} ${s.op === "!=" ? "!= " : ""}${right}`;
    }
    case "vmap":
      return `${exprCanonical(s.key)} vmap ${vmapCanonical(s.map)}`;
    case "verdict":
      return verdictText(s.verdict);
    case "reject":
      return rejectCanonical(family, s.with);
    case "counter":
      return counterText({ ...s, packets: s.packets ?? 0 });
    case "mark-set":
      return `meta mark set ${s.value.kind === "value" ? markHex(s.value.text) : exprCanonical(s.value)}`;
    case "masquerade":
      return s.fullyRandom ? "masquerade fully-random" : "masquerade";
    case "dnat": {
      const addr = canonicalIP(s.address, "strict") ?? s.address;
      const fam = family === "inet" ? (addr.includes(":") ? "ip6 " : "ip ") : "";
      return `dnat ${fam}to ${dnatTarget(addr, s.port)}`;
    }
    case "set-update":
      return `${s.op} @${s.set} { ${exprCanonical(s.key)} }`;
    case "snat": {
      const fam = family === "inet" ? `${s.family ?? "ip"} ` : "";
      return `snat ${fam}to ${natTargetCanonical(s.to)}${natFlagsText(s.flags)}`;
    }
    case "redirect":
      return redirectText(s);
    case "log":
      return logText(s, false);
    case "limit":
      return limitText(limitCanonical(s));
    case "ct-mark-set":
      return `ct mark set ${s.value.kind === "value" ? markHex(s.value.text) : exprCanonical(s.value)}`;
    case "notrack":
      return "notrack";
    default:
      return assertNever(s);
  }
}

/** The family's default reject (ICMP(v6)/ICMPX port unreachable) prints as bare `reject`. */
function rejectCanonical(family: Family, w: RejectWith | undefined): string {
  if (w === undefined) return "reject";
  const implicit = family === "ip" ? "icmp" : family === "ip6" ? "icmpv6" : "icmpx";
  if (w.kind === implicit && w.type === "port-unreachable") return "reject";
  return `reject with ${rejectWithText(w, false)}`;
}

function natTargetCanonical(t: NatTarget): string {
  const a = (x: string): string => canonicalIP(x, "strict") ?? x;
  const c: NatTarget = {
    ...t,
    address: a(t.address),
    ...(t.addressTo !== undefined ? { addressTo: a(t.addressTo) } : {}),
  };
  const v6 = c.address.includes(":");
  const br = (x: string): string => (v6 && c.port !== undefined ? `[${x}]` : x);
  // A range that is a prefix lists as one (`1.0.0.4-1.0.0.5` as `1.0.0.4/31`).
  const r = c.addressTo === undefined ? undefined : parseRange(`${c.address}-${c.addressTo}`);
  let out = br(c.address);
  if (r !== undefined && !v6) out = formatRange(r.range, r.family);
  else if (c.addressTo !== undefined) out += `-${br(c.addressTo)}`;
  if (c.port !== undefined) out += `:${c.portTo === undefined ? c.port : `${c.port}-${c.portTo}`}`;
  return out;
}

const BYTE_FACTOR: Readonly<Record<ByteUnit, number>> = {
  bytes: 1,
  kbytes: 1024,
  mbytes: 1024 ** 2,
};
const BYTE_UNITS: readonly ByteUnit[] = ["bytes", "kbytes", "mbytes"];

/** nft's get_rate: the largest unit the byte count divides into evenly. */
function byteRate(n: number): { readonly value: number; readonly unit: ByteUnit } {
  let i = 0;
  let v = n;
  while (v !== 0 && i < BYTE_UNITS.length - 1 && v % 1024 === 0) {
    v /= 1024;
    i++;
  }
  return { value: v, unit: BYTE_UNITS[i] as ByteUnit };
}

/** nft's limit_stmt_print: packet bursts of 5 (the default) and byte bursts of 0 are not shown. */
function limitCanonical(
  s: Extract<Statement, { kind: "limit" }>,
): Extract<Statement, { kind: "limit" }> {
  const base = { kind: "limit" as const, over: s.over, per: s.per };
  if (s.bytesUnit === undefined) {
    const burst = s.burst ?? 5;
    return { ...base, rate: s.rate, ...(burst !== 5 && burst !== 0 ? { burst } : {}) };
  }
  const r = byteRate(s.rate * BYTE_FACTOR[s.bytesUnit]);
  const burstBytes = (s.burst ?? 0) * BYTE_FACTOR[s.burstUnit ?? "bytes"];
  if (burstBytes === 0) return { ...base, rate: r.value, bytesUnit: r.unit };
  const b = byteRate(burstBytes);
  return { ...base, rate: r.value, bytesUnit: r.unit, burst: b.value, burstUnit: b.unit };
}

const PORTED = new Set(["tcp", "udp", "sctp"]);

/** Uses a transport field the `meta l4proto p` match is the dependency of (`th` or `p`). */
function hasTh(e: Expr, p: string): boolean {
  if (e.kind === "concat") return e.parts.some((x) => hasTh(x, p));
  return e.kind === "payload" && (e.protocol === "th" || e.protocol === p);
}

function thAs(e: Expr, p: "tcp" | "udp" | "sctp"): Expr {
  if (e.kind === "concat") return { ...e, parts: e.parts.map((x) => thAs(x, p)) };
  return e.kind === "payload" && e.protocol === "th" ? { ...e, protocol: p } : e;
}

/**
 * nft's dependency handling when it lists a rule: once the transport protocol is known (a
 * `meta l4proto tcp` match or a `tcp ...` field), later `th` fields print as `tcp ...`; and a
 * `meta l4proto tcp` match that a later field depends on disappears.
 */
function withoutL4Dependency(stmts: readonly Statement[], family: Family): readonly Statement[] {
  const out: Statement[] = [];
  let proto: "tcp" | "udp" | "sctp" | undefined;
  // `reject with tcp reset` depends on `meta l4proto tcp` too: in ip/ip6 nft hides that match,
  // in inet it shows it (and adds it where the rule has none).
  const resets = (x: Statement, p: string): boolean =>
    p === "tcp" && family !== "inet" && x.kind === "reject" && x.with?.kind === "tcp reset";
  stmts.forEach((s, i) => {
    if (
      s.kind === "reject" &&
      s.with?.kind === "tcp reset" &&
      family === "inet" &&
      proto === undefined
    ) {
      // nft puts the dependency it adds at the front of the rule.
      out.unshift(match({ kind: "meta", key: "l4proto", short: false }, value("tcp")));
      out.push(s);
      proto = "tcp";
      return;
    }
    if (
      s.kind === "match" &&
      s.op === "==" &&
      s.left.kind === "meta" &&
      s.left.key === "l4proto" &&
      s.right.kind === "value" &&
      PORTED.has(s.right.text)
    ) {
      const p = s.right.text as "tcp" | "udp" | "sctp";
      const rest = stmts.slice(i + 1);
      const used = rest.some(
        (x) =>
          (x.kind === "match" && hasTh(x.left, p)) ||
          (x.kind === "vmap" && hasTh(x.key, p)) ||
          resets(x, p),
      );
      proto ??= p;
      if (used) return;
      out.push(s);
      return;
    }
    if (s.kind === "match") {
      const left = proto === undefined ? s.left : thAs(s.left, proto);
      if (left.kind === "payload" && PORTED.has(left.protocol) && proto === undefined)
        proto = left.protocol as "tcp" | "udp" | "sctp";
      out.push({ ...s, left });
      return;
    }
    if (s.kind === "vmap" && proto !== undefined) {
      out.push({ ...s, key: thAs(s.key, proto) });
      return;
    }
    out.push(s);
  });
  return out;
}
