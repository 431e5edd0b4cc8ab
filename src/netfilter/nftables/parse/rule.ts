/**
 * One rule's statements (nft(8) syntax, the subset kube-proxy writes and `nft list` prints):
 * payload, meta, ct, fib and numgen expressions, concatenations, bitwise `and/or/xor` (`& | ^`),
 * comparisons with values, anonymous sets and named sets, verdict maps, verdicts, `reject`,
 * `counter`, `mark set`, `masquerade`, `dnat to`, `update @set { ... }` and a trailing
 * `comment`. Anything else is an error naming the word, at its line and column.
 */
import type {
  Expr,
  PayloadField,
  PayloadProtocol,
  Rule,
  Statement,
  Value,
  Verdict,
  VerdictMapRef,
} from "../model.js";
import {
  parseLimit,
  parseLog,
  parseRedirect,
  parseRejectWith,
  parseSnat,
  count,
} from "./statements.js";
import type { Cursor, Token } from "./tokens.js";

const PAYLOAD_PROTOCOLS = new Set(["ip", "ip6", "th", "tcp", "udp", "sctp"]);
const ADDRESS_FIELDS = new Set(["saddr", "daddr"]);
const PORT_FIELDS = new Set(["sport", "dport"]);
const META_KEYS = new Set(["l4proto", "mark", "iifname", "oifname", "nfproto"]);
const BITWISE: Readonly<Record<string, "and" | "or" | "xor">> = {
  and: "and",
  or: "or",
  xor: "xor",
  "&": "and",
  "|": "or",
  "^": "xor",
};
/** Words that start an expression. */
const EXPR_START = new Set([
  ...PAYLOAD_PROTOCOLS,
  "meta",
  "mark",
  "iifname",
  "oifname",
  "ct",
  "fib",
  "numgen",
]);

export function parseRule(c: Cursor): Rule {
  const statements: Statement[] = [];
  let comment: string | undefined;
  while (!c.done()) {
    const t = c.peek() as Token;
    if (t.kind === "word" && t.text === "comment") {
      c.next("comment");
      const s = c.next("a comment string");
      if (s.kind !== "string")
        throw c.error(s, `comment: expected a quoted string, found "${s.text}"`);
      comment = s.text;
      if (!c.done())
        throw c.error(c.peek() as Token, `unexpected "${c.peekText()}" after the comment`);
      break;
    }
    statements.push(parseStatement(c));
  }
  if (statements.length === 0) throw c.errorAtEnd("empty rule");
  return comment === undefined ? { statements } : { statements, comment };
}

function parseVerdict(c: Cursor, t: Token): Verdict | undefined {
  switch (t.text) {
    case "accept":
    case "drop":
    case "return":
    case "continue":
      return { kind: t.text };
    case "jump":
    case "goto": {
      const target = c.next("a chain name");
      if (target.kind !== "word") throw c.error(target, `${t.text}: expected a chain name`);
      return { kind: t.text, chain: target.text };
    }
    default:
      return undefined;
  }
}

function parseStatement(c: Cursor): Statement {
  const t = c.next("a statement");
  if (t.kind !== "word") throw c.error(t, `unexpected "${t.text}"`);
  const verdict = parseVerdict(c, t);
  if (verdict !== undefined) return { kind: "verdict", verdict };
  switch (t.text) {
    case "reject":
      return c.accept("with") ? { kind: "reject", with: parseRejectWith(c) } : { kind: "reject" };
    case "counter": {
      if (!c.accept("packets")) return { kind: "counter" };
      const packets = count(c, c.next("a packet count"), "counter packets");
      c.expect("bytes");
      const bytes = count(c, c.next("a byte count"), "counter bytes");
      return { kind: "counter", packets, bytes };
    }
    case "snat":
      return parseSnat(c);
    case "redirect":
      return parseRedirect(c);
    case "log":
      return parseLog(c, t);
    case "limit":
      return parseLimit(c);
    case "notrack":
      return { kind: "notrack" };
    case "masquerade":
      return { kind: "masquerade", fullyRandom: c.accept("fully-random") };
    case "dnat":
      return parseDnat(c);
    case "update":
    case "add": {
      const set = c.next("@set");
      if (!set.text.startsWith("@") || set.text.length < 2)
        throw c.error(set, `${t.text}: expected @set, found "${set.text}"`);
      c.expect("{");
      const key = parseConcat(c);
      c.expect("}");
      return { kind: "set-update", op: t.text, set: set.text.slice(1), key };
    }
    default:
      break;
  }
  if (!EXPR_START.has(t.text)) throw c.error(t, `unknown statement or expression "${t.text}"`);
  if (t.text === "ct" && c.peekText() === "mark" && c.peekText(1) === "set") {
    c.next("mark");
    c.next("set");
    return { kind: "ct-mark-set", value: parseValueExpr(c) };
  }
  // `mark set ...` / `meta mark set ...`.
  if (
    (t.text === "mark" && c.peekText() === "set") ||
    (t.text === "meta" && c.peekText() === "mark" && c.peekText(1) === "set")
  ) {
    const short = t.text === "mark";
    if (!short) c.next("mark");
    c.next("set");
    return { kind: "mark-set", value: parseValueExpr(c), short };
  }
  const left = parseConcatFrom(c, t);
  if (c.accept("vmap")) return { kind: "vmap", key: left, map: parseVmap(c) };
  let op: "==" | "!=" = "==";
  let explicit = false;
  if (c.accept("!=")) op = "!=";
  else if (c.accept("==")) explicit = true;
  const right = parseRight(c);
  return { kind: "match", left, op, right, explicit };
}

function parseDnat(c: Cursor): Statement {
  if (c.peekText() === "ip" || c.peekText() === "ip6") c.next("family");
  c.expect("to");
  const a = c.next("an address");
  const text = a.text;
  let address = text;
  let port: number | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracket !== null) {
    address = bracket[1] as string;
    if (bracket[2] !== undefined) port = Number(bracket[2]);
  } else if (!text.includes("::") && text.split(":").length === 2) {
    const [ip, p] = text.split(":");
    address = ip as string;
    port = Number(p);
  }
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535))
    throw c.error(a, `dnat: bad port in "${text}"`);
  return port === undefined ? { kind: "dnat", address } : { kind: "dnat", address, port };
}

function parseVmap(c: Cursor): VerdictMapRef {
  const t = c.next("@map or { ... }");
  if (t.text.startsWith("@") && t.text.length > 1)
    return { kind: "set-ref", name: t.text.slice(1) };
  if (t.text !== "{") throw c.error(t, `vmap: expected @map or {, found "${t.text}"`);
  const entries: { key: string; verdict: Verdict }[] = [];
  for (;;) {
    const k = c.next("a key");
    c.expect(":");
    const v = c.next("a verdict");
    const verdict = parseVerdict(c, v);
    if (verdict === undefined) throw c.error(v, `vmap: "${v.text}" is not a verdict`);
    entries.push({ key: k.text, verdict });
    if (c.accept("}")) break;
    c.expect(",");
  }
  return { kind: "vmap-literal", entries };
}

function parseRight(c: Cursor): Expr {
  const t = c.next("a value");
  if (t.text === "{" && t.kind === "punct") {
    const elements: string[] = [];
    let compact = true;
    let prev: Token | undefined;
    for (;;) {
      const e = c.next("an element");
      if (e.kind === "punct") throw c.error(e, `unexpected "${e.text}" in a set`);
      elements.push(e.text);
      const sep = c.next(", or }");
      if (sep.text === "}") break;
      if (sep.text !== ",") throw c.error(sep, `expected , or } in a set, found "${sep.text}"`);
      if (sep.col !== e.col + e.text.length) compact = false;
      prev = sep;
    }
    if (prev === undefined) compact = false;
    return { kind: "set-literal", elements, compact };
  }
  if (t.kind === "word" && t.text.startsWith("@") && t.text.length > 1)
    return { kind: "set-ref", name: t.text.slice(1) };
  if (t.kind === "punct") throw c.error(t, `unexpected "${t.text}"`);
  // `ct state established,related`: a comma-separated list is one value (nft lists a negated
  // one as `established | related`).
  let text = t.text;
  while ((c.peekText() === "," || c.peekText() === "|") && c.peek(1)?.kind === "word") {
    c.next(",");
    text += `,${c.next("a value").text}`;
  }
  return { kind: "value", text };
}

function parseValueExpr(c: Cursor): Expr {
  const t = c.peek();
  if (t !== undefined && t.kind === "word" && EXPR_START.has(t.text)) return parseConcat(c);
  const v = c.next("a value");
  return { kind: "value", text: v.text };
}

function parseConcat(c: Cursor): Expr {
  return parseConcatFrom(c, c.next("an expression"));
}

function parseConcatFrom(c: Cursor, first: Token): Expr {
  const parts = [parseBitwise(c, first)];
  while (c.accept(".")) parts.push(parseBitwise(c, c.next("an expression")));
  return parts.length === 1 ? (parts[0] as Expr) : { kind: "concat", parts };
}

function parseBitwise(c: Cursor, first: Token): Expr {
  const left = parsePrimary(c, first);
  const op = c.peekText();
  if (op !== undefined && BITWISE[op] !== undefined && c.peek()?.kind === "word") {
    c.next("operator");
    const v = c.next("a value");
    const right: Value = { kind: "value", text: v.text };
    return { kind: "bitwise", op: BITWISE[op], left, right, words: /^[a-z]+$/.test(op) };
  }
  return left;
}

function parsePrimary(c: Cursor, t: Token): Expr {
  if (t.kind !== "word") throw c.error(t, `unexpected "${t.text}"`);
  const word = t.text;
  if (PAYLOAD_PROTOCOLS.has(word)) {
    const f = c.next("a field");
    const ok =
      word === "ip" || word === "ip6" ? ADDRESS_FIELDS.has(f.text) : PORT_FIELDS.has(f.text);
    if (!ok) throw c.error(f, `unknown expression "${word} ${f.text}"`);
    return { kind: "payload", protocol: word as PayloadProtocol, field: f.text as PayloadField };
  }
  switch (word) {
    case "meta": {
      const k = c.next("a meta key");
      if (!META_KEYS.has(k.text)) throw c.error(k, `unknown expression "meta ${k.text}"`);
      return { kind: "meta", key: k.text as "l4proto", short: false };
    }
    case "mark":
    case "iifname":
    case "oifname":
      return { kind: "meta", key: word, short: true };
    case "ct": {
      const k = c.next("a ct key");
      if (k.text !== "state" && k.text !== "status" && k.text !== "mark")
        throw c.error(k, `unknown expression "ct ${k.text}"`);
      return { kind: "ct", key: k.text };
    }
    case "fib": {
      const f = c.next("saddr or daddr");
      if (f.text !== "saddr" && f.text !== "daddr")
        throw c.error(f, `unknown expression "fib ${f.text}"`);
      const r = c.next("type");
      if (r.text !== "type") throw c.error(r, `unknown expression "fib ${f.text} ${r.text}"`);
      return { kind: "fib", flag: f.text, result: "type" };
    }
    case "numgen": {
      const m = c.next("random");
      if (m.text !== "random") throw c.error(m, `unsupported expression "numgen ${m.text}"`);
      c.expect("mod");
      const n = c.next("a modulus");
      const mod = Number(n.text);
      if (!Number.isInteger(mod) || mod < 1) throw c.error(n, `numgen: bad modulus "${n.text}"`);
      return { kind: "numgen", mode: "random", mod };
    }
    default:
      throw c.error(t, `unknown statement or expression "${word}"`);
  }
}
