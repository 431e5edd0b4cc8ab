/**
 * The nftables object model: tables of chains, sets and maps; rules as typed statements over
 * typed expressions. Kubernetes-agnostic. Sources: nft(8) (nftables 1.0.6) and
 * sigs.k8s.io/knftables (the object kinds kube-proxy writes).
 *
 * Values inside set elements and literals are kept as the text written (`172.30.0.41`, `tcp`,
 * `80`, `10.0.0.0/8`); the set's key types say how to read them. A few spellings nft accepts in
 * two forms (`mark` / `meta mark`, `or` / `|`, `{ a , b }` / `{ a,b }`) are recorded so the
 * knftables text a generator wrote prints back byte for byte; the canonical `nft list` printer
 * ignores them.
 */

export type Family = "ip" | "ip6" | "inet";
export type ChainType = "filter" | "nat" | "route";
export type Hook = "prerouting" | "input" | "forward" | "output" | "postrouting";

export interface BaseChainSpec {
  readonly type: ChainType;
  readonly hook: Hook;
  /** Numeric priority (named priorities are resolved when parsed: `dstnat - 10` is -110). */
  readonly priority: number;
  /** As written; absent means the kernel's default, accept (knftables writes none then). */
  readonly policy?: "accept" | "drop";
}

export interface Chain {
  readonly name: string;
  readonly comment?: string;
  readonly base?: BaseChainSpec;
  readonly rules: readonly Rule[];
}

export interface Rule {
  readonly statements: readonly Statement[];
  readonly comment?: string;
}

/** Element key types (`type a . b . c`) and map value types. */
export type DataType =
  "ipv4_addr" | "ipv6_addr" | "inet_proto" | "inet_service" | "mark" | "ifname" | "verdict";

export type SetFlag = "constant" | "interval" | "timeout" | "dynamic";

export interface NamedSet {
  /** A map has a value type; a set has none. Verdict maps are maps with value `verdict`. */
  readonly kind: "set" | "map";
  readonly name: string;
  /** One entry per concatenated component. */
  readonly keyType: readonly DataType[];
  readonly valueType?: DataType;
  readonly flags: readonly SetFlag[];
  /** Default element timeout in seconds. */
  readonly timeout?: number;
  readonly comment?: string;
  readonly elements: readonly SetElement[];
}

export interface SetElement {
  /** One atom per key component, as written. */
  readonly key: readonly string[];
  readonly value?: MapValue;
  readonly comment?: string;
  /** Seconds. */
  readonly timeout?: number;
}

export type MapValue = { readonly kind: "verdict"; readonly verdict: Verdict } | Value;

export interface Table {
  readonly family: Family;
  readonly name: string;
  readonly comment?: string;
  /** Sets and maps in creation order. */
  readonly sets: readonly NamedSet[];
  /** Chains in creation order. */
  readonly chains: readonly Chain[];
}

// ---- verdicts ----

export type Verdict =
  | { readonly kind: "accept" }
  | { readonly kind: "drop" }
  | { readonly kind: "return" }
  | { readonly kind: "continue" }
  | { readonly kind: "jump"; readonly chain: string }
  | { readonly kind: "goto"; readonly chain: string };

// ---- expressions ----

export type PayloadProtocol = "ip" | "ip6" | "th" | "tcp" | "udp" | "sctp";
export type PayloadField = "saddr" | "daddr" | "sport" | "dport";

export interface Value {
  readonly kind: "value";
  readonly text: string;
}

export type Expr =
  | { readonly kind: "payload"; readonly protocol: PayloadProtocol; readonly field: PayloadField }
  /** `short`: written without the `meta` keyword (`mark`, `iifname`). */
  | {
      readonly kind: "meta";
      readonly key: "l4proto" | "mark" | "iifname" | "oifname" | "nfproto";
      readonly short: boolean;
    }
  | { readonly kind: "ct"; readonly key: "state" | "status" | "mark" }
  | { readonly kind: "fib"; readonly flag: "saddr" | "daddr"; readonly result: "type" }
  | { readonly kind: "numgen"; readonly mode: "random"; readonly mod: number }
  | { readonly kind: "concat"; readonly parts: readonly Expr[] }
  /** `words`: written `and`/`or`/`xor` (knftables) rather than `&`/`|`/`^`. */
  | {
      readonly kind: "bitwise";
      readonly op: "and" | "or" | "xor";
      readonly left: Expr;
      readonly right: Value;
      readonly words: boolean;
    }
  | Value
  /** An anonymous set `{ a , b }`; `compact` when written `{ a,b }`. */
  | {
      readonly kind: "set-literal";
      readonly elements: readonly string[];
      readonly compact: boolean;
    }
  | { readonly kind: "set-ref"; readonly name: string };

/** The verdict map of a `vmap` statement: a named map or an anonymous `{ k : v , ... }`. */
export type VerdictMapRef =
  | { readonly kind: "set-ref"; readonly name: string }
  | {
      readonly kind: "vmap-literal";
      readonly entries: readonly { readonly key: string; readonly verdict: Verdict }[];
    };

// ---- statements ----

export type Statement =
  /** `op` implicit `==` unless `explicit` (e.g. `mark and 0x4000 == 0`). */
  | {
      readonly kind: "match";
      readonly left: Expr;
      readonly op: "==" | "!=";
      readonly right: Expr;
      readonly explicit: boolean;
    }
  | { readonly kind: "vmap"; readonly key: Expr; readonly map: VerdictMapRef }
  | { readonly kind: "verdict"; readonly verdict: Verdict }
  /** `reject` (the family's default: ICMP port unreachable) or `reject with ...`. */
  | { readonly kind: "reject"; readonly with?: RejectWith }
  /** `counter`, or `counter packets N bytes M` (the values nft lists). */
  | { readonly kind: "counter"; readonly packets?: number; readonly bytes?: number }
  | { readonly kind: "mark-set"; readonly value: Expr; readonly short: boolean }
  | { readonly kind: "masquerade"; readonly fullyRandom: boolean }
  /** `dnat to ADDR[:PORT]` (IPv6 addresses bracketed when a port follows). */
  | { readonly kind: "dnat"; readonly address: string; readonly port?: number }
  | {
      readonly kind: "set-update";
      readonly op: "update" | "add";
      readonly set: string;
      readonly key: Expr;
    }
  /** `snat [ip|ip6] to ADDR[-ADDR][:PORT[-PORT]] [FLAGS]`; `family` as written (needed in inet). */
  | {
      readonly kind: "snat";
      readonly family?: "ip" | "ip6";
      readonly to: NatTarget;
      readonly flags: readonly NatFlag[];
    }
  /** `redirect [to :PORT[-PORT]] [FLAGS]`: DNAT to the incoming interface's address (127.0.0.1 / ::1 on output). */
  | {
      readonly kind: "redirect";
      readonly port?: number;
      readonly portTo?: number;
      readonly flags: readonly NatFlag[];
    }
  /** `log [prefix "P"] [group N] [level L] [flags ...]`: no effect on the packet. */
  | {
      readonly kind: "log";
      readonly prefix?: string;
      readonly group?: number;
      readonly level?: LogLevel;
      readonly flags: readonly LogFlag[];
    }
  /**
   * `limit rate [over] N[ UNIT]/PER [burst B[ UNIT]]` as a match. The tracer's model: every
   * packet is under the limit (a probe is one connection's first packets), so `limit rate` always
   * matches and `limit rate over` never does (docs/nftables-proxier.md).
   */
  | {
      readonly kind: "limit";
      readonly over: boolean;
      readonly rate: number;
      /** Absent: packets; else the rate is bytes in this unit. */
      readonly bytesUnit?: ByteUnit;
      readonly per: RateUnit;
      readonly burst?: number;
      /** The burst's byte unit (byte limits only). */
      readonly burstUnit?: ByteUnit;
    }
  /** `ct mark set EXPR`: the connection's mark. */
  | { readonly kind: "ct-mark-set"; readonly value: Expr }
  /** `notrack`: the packet skips conntrack (no NAT for it). */
  | { readonly kind: "notrack" };

export type NatFlag = "random" | "fully-random" | "persistent";
export const NAT_FLAGS: readonly NatFlag[] = ["random", "fully-random", "persistent"];

/** `ADDR[-ADDR][:PORT[-PORT]]`: what a NAT statement maps to (IPv6 addresses unbracketed). */
export interface NatTarget {
  readonly address: string;
  readonly addressTo?: string;
  readonly port?: number;
  readonly portTo?: number;
}

export type RejectWith =
  | { readonly kind: "icmp" | "icmpv6" | "icmpx"; readonly type: string }
  | { readonly kind: "tcp reset" };

export type LogLevel =
  "emerg" | "alert" | "crit" | "err" | "warn" | "notice" | "info" | "debug" | "audit";
export const LOG_LEVELS: readonly LogLevel[] = [
  "emerg",
  "alert",
  "crit",
  "err",
  "warn",
  "notice",
  "info",
  "debug",
  "audit",
];
/** The log flags nft knows, in the order it prints them. */
export type LogFlag = "tcp sequence" | "tcp options" | "ip options" | "skuid" | "ether";
export const LOG_FLAGS: readonly LogFlag[] = [
  "tcp sequence",
  "tcp options",
  "ip options",
  "skuid",
  "ether",
];

export type RateUnit = "second" | "minute" | "hour" | "day" | "week";
export type ByteUnit = "bytes" | "kbytes" | "mbytes";

// ---- helpers for building ----

export const value = (text: string | number): Value => ({ kind: "value", text: String(text) });
export const verdictStatement = (verdict: Verdict): Statement => ({ kind: "verdict", verdict });
export const jump = (chain: string): Verdict => ({ kind: "jump", chain });
export const goto = (chain: string): Verdict => ({ kind: "goto", chain });

/** `left right` (implicit ==) or `left != right`. */
export function match(left: Expr, right: Expr, negated = false): Statement {
  return { kind: "match", left, op: negated ? "!=" : "==", right, explicit: false };
}

export function payload(protocol: PayloadProtocol, field: PayloadField): Expr {
  return { kind: "payload", protocol, field };
}

export function meta(
  key: "l4proto" | "mark" | "iifname" | "oifname" | "nfproto",
  short = false,
): Expr {
  return { kind: "meta", key, short };
}

export function concat(...parts: Expr[]): Expr {
  return { kind: "concat", parts };
}
