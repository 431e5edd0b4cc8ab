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
import { canonicalIntervals, parseRange } from "./interval.js";
import { BITWISE_SYMBOL, dnatTarget, verdictText } from "./knftables-text.js";
import type {
  BaseChainSpec,
  Chain,
  DataType,
  Expr,
  Family,
  NamedSet,
  Rule,
  SetElement,
  Statement,
  Table,
  VerdictMapRef,
} from "./model.js";
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
  const body = withoutL4Dependency(r.statements)
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
    default:
      return undefined;
  }
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
      return "reject";
    case "counter":
      return "counter packets 0 bytes 0";
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
    default:
      return assertNever(s);
  }
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
function withoutL4Dependency(stmts: readonly Statement[]): readonly Statement[] {
  const out: Statement[] = [];
  let proto: "tcp" | "udp" | "sctp" | undefined;
  stmts.forEach((s, i) => {
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
        (x) => (x.kind === "match" && hasTh(x.left, p)) || (x.kind === "vmap" && hasTh(x.key, p)),
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
