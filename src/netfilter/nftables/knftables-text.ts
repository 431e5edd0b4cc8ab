/**
 * Rules, elements and objects as knftables writes them (`add rule ip kube-proxy CHAIN ...`):
 * the spelling kube-proxy chose is kept (`mark and 0x4000 == 0`, `{ a , b }`, `{ a,b }`), so a
 * generated table prints back byte for byte. Source: sigs.k8s.io/knftables objects.go
 * (writeOperation) and kube-proxy's rule strings (pkg/proxy/nftables/proxier.go).
 */
import { assertNever } from "../../util/assert-never.js";
import { goQuote } from "./go-quote.js";
import {
  LOG_FLAGS,
  NAT_FLAGS,
  type Chain,
  type Expr,
  type LogFlag,
  type MapValue,
  type NamedSet,
  type NatFlag,
  type NatTarget,
  type RejectWith,
  type Rule,
  type SetElement,
  type Statement,
  type Table,
  type Verdict,
  type VerdictMapRef,
} from "./model.js";

export function verdictText(v: Verdict): string {
  switch (v.kind) {
    case "accept":
    case "drop":
    case "return":
    case "continue":
      return v.kind;
    case "jump":
    case "goto":
      return `${v.kind} ${v.chain}`;
    default:
      return assertNever(v);
  }
}

export function exprText(e: Expr): string {
  switch (e.kind) {
    case "payload":
      return `${e.protocol} ${e.field}`;
    case "meta":
      return e.short ? e.key : `meta ${e.key}`;
    case "ct":
      return `ct ${e.key}`;
    case "fib":
      return `fib ${e.flag} ${e.result}`;
    case "numgen":
      return `numgen ${e.mode} mod ${e.mod}`;
    case "concat":
      return e.parts.map(exprText).join(" . ");
    case "bitwise":
      return `${exprText(e.left)} ${e.words ? e.op : BITWISE_SYMBOL[e.op]} ${e.right.text}`;
    case "value":
      return e.text;
    case "set-literal":
      return e.compact ? `{ ${e.elements.join(",")} }` : `{ ${e.elements.join(" , ")} }`;
    case "set-ref":
      return `@${e.name}`;
    default:
      return assertNever(e);
  }
}

export const BITWISE_SYMBOL = { and: "&", or: "|", xor: "^" } as const;

function vmapText(m: VerdictMapRef): string {
  switch (m.kind) {
    case "set-ref":
      return `@${m.name}`;
    case "vmap-literal":
      return `{ ${m.entries.map((x) => `${x.key} : ${verdictText(x.verdict)}`).join(" , ")} }`;
    default:
      return assertNever(m);
  }
}

export function statementText(s: Statement): string {
  switch (s.kind) {
    case "match": {
      const op = s.op === "!=" ? "!= " : s.explicit ? "== " : "";
      return `${exprText(s.left)} ${op}${exprText(s.right)}`;
    }
    case "vmap":
      return `${exprText(s.key)} vmap ${vmapText(s.map)}`;
    case "verdict":
      return verdictText(s.verdict);
    case "reject":
      return s.with === undefined ? "reject" : `reject with ${rejectWithText(s.with, true)}`;
    case "counter":
      return counterText(s);
    case "mark-set":
      return `${s.short ? "mark" : "meta mark"} set ${exprText(s.value)}`;
    case "masquerade":
      return s.fullyRandom ? "masquerade fully-random" : "masquerade";
    case "dnat":
      return `dnat to ${dnatTarget(s.address, s.port)}`;
    case "set-update":
      return `${s.op} @${s.set} { ${exprText(s.key)} }`;
    case "snat":
      return `snat ${s.family === undefined ? "" : `${s.family} `}to ${natTargetText(s.to)}${natFlagsText(s.flags)}`;
    case "redirect":
      return redirectText(s);
    case "log":
      return logText(s, true);
    case "limit":
      return limitText(s);
    case "ct-mark-set":
      return `ct mark set ${exprText(s.value)}`;
    case "notrack":
      return "notrack";
    default:
      return assertNever(s);
  }
}

/** `icmp type X` (`type` optional on input; nft lists it without) or `tcp reset`. */
export function rejectWithText(w: RejectWith, typeWord: boolean): string {
  return w.kind === "tcp reset" ? "tcp reset" : `${w.kind} ${typeWord ? "type " : ""}${w.type}`;
}

export function counterText(s: Extract<Statement, { kind: "counter" }>): string {
  return s.packets === undefined && s.bytes === undefined
    ? "counter"
    : `counter packets ${s.packets ?? 0} bytes ${s.bytes ?? 0}`;
}

/** `ADDR[-ADDR][:PORT[-PORT]]`, IPv6 addresses bracketed when a port follows. */
export function natTargetText(t: NatTarget): string {
  const v6 = t.address.includes(":");
  const bracket = (a: string): string => (v6 && t.port !== undefined ? `[${a}]` : a);
  let out = bracket(t.address);
  if (t.addressTo !== undefined) out += `-${bracket(t.addressTo)}`;
  if (t.port !== undefined) out += `:${portRangeText(t.port, t.portTo)}`;
  return out;
}

function portRangeText(from: number, to: number | undefined): string {
  return to === undefined ? String(from) : `${from}-${to}`;
}

/** ` random,fully-random,persistent` in nft's order (print_nf_nat_flags). */
export function natFlagsText(flags: readonly NatFlag[]): string {
  const on = NAT_FLAGS.filter((f) => flags.includes(f));
  return on.length === 0 ? "" : ` ${on.join(",")}`;
}

export function redirectText(s: Extract<Statement, { kind: "redirect" }>): string {
  const to = s.port === undefined ? "" : ` to :${portRangeText(s.port, s.portTo)}`;
  return `redirect${to}${natFlagsText(s.flags)}`;
}

/**
 * `log prefix "P" group N level L flags ...` in nft's order (log_stmt_print); `canonicalLevel`
 * drops the default level (warn) as nft lists it. Flags: all five are `flags all`; else
 * `flags tcp sequence,options`, `flags ip options`, `flags skuid`, `flags ether`.
 */
export function logText(s: Extract<Statement, { kind: "log" }>, keepLevel: boolean): string {
  let out = "log";
  if (s.prefix !== undefined) out += ` prefix "${s.prefix}"`;
  if (s.group !== undefined) out += ` group ${s.group}`;
  if (s.level !== undefined && (keepLevel || s.level !== "warn")) out += ` level ${s.level}`;
  const has = (f: LogFlag): boolean => s.flags.includes(f);
  if (LOG_FLAGS.every(has)) return `${out} flags all`;
  const tcp = [has("tcp sequence") ? "sequence" : "", has("tcp options") ? "options" : ""];
  if (tcp.some((x) => x !== "")) out += ` flags tcp ${tcp.filter((x) => x !== "").join(",")}`;
  if (has("ip options")) out += " flags ip options";
  if (has("skuid")) out += " flags skuid";
  if (has("ether")) out += " flags ether";
  return out;
}

export function limitText(s: Extract<Statement, { kind: "limit" }>): string {
  const rate = s.bytesUnit === undefined ? `${s.rate}` : `${s.rate} ${s.bytesUnit}`;
  let out = `limit rate ${s.over ? "over " : ""}${rate}/${s.per}`;
  if (s.burst !== undefined) out += ` burst ${s.burst} ${s.burstUnit ?? "packets"}`;
  return out;
}

export function dnatTarget(address: string, port: number | undefined): string {
  if (port === undefined) return address;
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The rule body (statements, then ` comment "..."`), as after `add rule FAMILY TABLE CHAIN `. */
export function ruleText(r: Rule): string {
  const body = r.statements.map(statementText).join(" ");
  return r.comment === undefined ? body : `${body} comment ${goQuote(r.comment)}`;
}

export function mapValueText(v: MapValue): string {
  return v.kind === "verdict" ? verdictText(v.verdict) : v.text;
}

/** `{ K1 . K2 comment "c" : V }` (a map element's comment sits between key and colon). */
export function elementText(e: SetElement): string {
  let s = `{ ${e.key.join(" . ")}`;
  if (e.timeout !== undefined) s += ` timeout ${e.timeout}s`;
  if (e.comment !== undefined) s += ` comment ${goQuote(e.comment)}`;
  if (e.value !== undefined) s += ` : ${mapValueText(e.value)}`;
  return `${s} }`;
}

export function tableAddLine(t: Table): string {
  const c = t.comment === undefined ? "" : ` { comment ${goQuote(t.comment)} ; }`;
  return `add table ${t.family} ${t.name}${c}`;
}

export function chainAddLine(t: Table, c: Chain): string {
  const parts: string[] = [];
  if (c.base !== undefined) {
    parts.push(`type ${c.base.type} hook ${c.base.hook} priority ${c.base.priority} ;`);
    if (c.base.policy !== undefined) parts.push(`policy ${c.base.policy} ;`);
  }
  if (c.comment !== undefined) parts.push(`comment ${goQuote(c.comment)} ;`);
  const body = parts.length === 0 ? "" : ` { ${parts.join(" ")} }`;
  return `add chain ${t.family} ${t.name} ${c.name}${body}`;
}

export function setTypeText(s: NamedSet): string {
  const key = s.keyType.join(" . ");
  return s.valueType === undefined ? key : `${key} : ${s.valueType}`;
}

export function setAddLine(t: Table, s: NamedSet): string {
  const parts = [`type ${setTypeText(s)} ;`];
  if (s.flags.length > 0) parts.push(`flags ${s.flags.join(",")} ;`);
  if (s.timeout !== undefined) parts.push(`timeout ${s.timeout}s ;`);
  if (s.comment !== undefined) parts.push(`comment ${goQuote(s.comment)} ;`);
  return `add ${s.kind} ${t.family} ${t.name} ${s.name} { ${parts.join(" ")} }`;
}

export function ruleAddLine(t: Table, chain: string, r: Rule): string {
  return `add rule ${t.family} ${t.name} ${chain} ${ruleText(r)}`;
}

export function elementAddLine(t: Table, set: string, e: SetElement): string {
  return `add element ${t.family} ${t.name} ${set} ${elementText(e)}`;
}
