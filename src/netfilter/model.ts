/**
 * The iptables rule model: tables of chains of rules. Kubernetes-agnostic.
 *
 * A rule is kept twice over: typed (standard options, an ordered list of match instances, one
 * target), which the tracer evaluates and the canonical `iptables-save` formatter prints; and as
 * the text it was written with, so that kube-proxy's restore text round-trips byte for byte.
 *
 * Each match extension (src/netfilter/matches/<module>.ts) defines its own `Match` variant,
 * discriminated on `module`; each target (src/netfilter/targets/<name>.ts) its `Target` variant,
 * discriminated on `kind`. The unions are assembled in matches/index.ts and targets/index.ts.
 */
import type { CIDR, IPAddress, IPFamily } from "../net/index.js";
import type { Match } from "./matches/index.js";
import type { Target } from "./targets/index.js";

export type { Match, Target };

export type TableName = "raw" | "mangle" | "nat" | "filter" | "security";
export type Hook = "PREROUTING" | "INPUT" | "FORWARD" | "OUTPUT" | "POSTROUTING";

export interface Negatable<T> {
  readonly value: T;
  readonly negated: boolean;
}

export interface Counters {
  readonly packets: bigint;
  readonly bytes: bigint;
}

export interface Rule {
  /** `-p`: a protocol name (`tcp`, `udp`, `sctp`, `icmp`, `ipv6-icmp`, `all`) or number as written. */
  readonly protocol?: Negatable<string>;
  readonly source?: Negatable<CIDR>;
  readonly destination?: Negatable<CIDR>;
  readonly inInterface?: Negatable<string>;
  readonly outInterface?: Negatable<string>;
  /** `-f` / `! -f` (IPv4 only). */
  readonly fragment?: Negatable<true>;
  /** `-m` modules in the order written (implicit protocol matches too). */
  readonly matches: readonly Match[];
  /** Absent for a rule without `-j`/`-g` (it only counts). */
  readonly target?: Target;
  readonly counters?: Counters;
  /**
   * The text after `-A CHAIN` (and an `-I` index) as written in the input, quotes and inner
   * spacing kept, trailing blanks cut (restore form), when parsed. `splitRestoreWords(written)`
   * gives its words.
   */
  readonly written?: string;
  /** 1-based source line, when parsed. */
  readonly line?: number;
}

export interface Chain {
  readonly name: string;
  /** Built-in chains have a policy; user chains have none. */
  readonly policy?: "ACCEPT" | "DROP";
  readonly counters?: Counters;
  readonly rules: readonly Rule[];
  /** 1-based line of the `:CHAIN` / `-N` declaration, when parsed (absent: implicit built-in). */
  readonly line?: number;
}

export interface Table {
  readonly name: TableName;
  /** In declaration order. */
  readonly chains: readonly Chain[];
  /** 1-based line of `*TABLE`, when parsed. */
  readonly line?: number;
  /** Chains removed by `-X` lines, with the line (kept so the restore form round-trips). */
  readonly deleted?: readonly {
    readonly name: string;
    readonly line: number;
    /** Line of the deleted chain's declaration, when it had one. */
    readonly declaredLine?: number;
  }[];
}

export interface RuleSet {
  readonly family: IPFamily;
  readonly tables: readonly Table[];
}

// ---- what match evaluation sees (shared by the match extensions and the tracer) ----

export type L4Protocol = "tcp" | "udp" | "sctp" | "icmp" | "icmpv6";
export type CtState = "NEW" | "ESTABLISHED" | "RELATED" | "INVALID" | "UNTRACKED" | "SNAT" | "DNAT";

export interface Packet {
  readonly family: IPFamily;
  readonly protocol: L4Protocol;
  readonly src: IPAddress;
  readonly sport: number;
  readonly dst: IPAddress;
  readonly dport: number;
  /** Empty when not yet known (OUTPUT before routing) or not applicable. */
  readonly inInterface: string;
  readonly outInterface: string;
  readonly mark: number;
  readonly connmark: number;
  /** Conntrack states that hold (`NEW`, or `ESTABLISHED`, plus `DNAT`/`SNAT` once translated). */
  readonly ctState: readonly CtState[];
  /** The original direction tuple recorded by conntrack (for `--ctorigdst` etc.). */
  readonly ctOrig?: {
    readonly src: IPAddress;
    readonly dst: IPAddress;
    readonly sport: number;
    readonly dport: number;
  };
  readonly icmpType?: number;
  readonly icmpCode?: number;
  readonly fragment: boolean;
  /**
   * TCP flag bits (FIN=1, SYN=2, RST=4, PSH=8, ACK=16, URG=32). Absent: SYN for a packet in
   * state NEW, ACK otherwise.
   */
  readonly tcpFlags?: number;
  /** Direction of the packet in its connection (`-m conntrack --ctdir`). Absent: ORIGINAL. */
  readonly ctDirection?: "ORIGINAL" | "REPLY";
}

export type AddrType =
  | "UNSPEC"
  | "UNICAST"
  | "LOCAL"
  | "BROADCAST"
  | "ANYCAST"
  | "MULTICAST"
  | "BLACKHOLE"
  | "UNREACHABLE"
  | "PROHIBIT"
  | "THROW"
  | "NAT"
  | "XRESOLVE";

/** The node state a match may consult. The tracer provides it; matches never mutate it. */
export interface EvalContext {
  readonly hook: Hook;
  readonly table: TableName;
  /** addrtype of an address as seen on this node (optionally limited to one interface). */
  addrType(ip: IPAddress, limitIface?: string): AddrType;
  /** ipset membership: `key` already built from the packet by the set match's direction flags. */
  ipsetTest(setName: string, key: IpsetKey): boolean | undefined;
  /** Whether `recent` list `name` holds `addr` (seen within `seconds` when given). */
  recentSeen(name: string, addr: IPAddress, seconds?: number): boolean;
  /** Whether an nfacct object of this name exists. */
  nfacctExists(name: string): boolean;
  /** The IPVS state of the packet, for `-m ipvs`. */
  ipvs?: IpvsMatchView;
  /** Told what a condition read of the packet, when a trace is recorded for its flow cache. */
  readonly flow?: FlowReads | undefined;
}

/**
 * What a trace's conditions consulted of the packet's source, so that the trace can be reused
 * for every packet that agrees on those bits (trace/flow-cache.ts).
 */
export interface FlowReads {
  /** A prefix test of `ip` against a network value of `prefix` bits. */
  srcPrefix(ip: IPAddress, network: number | bigint, prefix: number): void;
  /** A condition read the fields in `bits` (trace/flow-reads.ts) of `packet`. */
  reads(bits: number, packet: Packet): void;
}

export interface IpvsMatchView {
  readonly isIpvs: boolean;
  readonly vaddr?: IPAddress;
  readonly vport?: number;
  readonly vproto?: L4Protocol;
  readonly vdir?: "ORIGINAL" | "REPLY";
}

/** One element of an ipset key, built from the packet as `--match-set NAME src,dst` says. */
export type IpsetKeyPart =
  | { readonly kind: "ip"; readonly ip: IPAddress }
  | { readonly kind: "port"; readonly protocol: L4Protocol; readonly port: number }
  /**
   * One side of the packet, as the `set` match builds keys: the set type decides whether that
   * dimension takes the address or the (protocol, port).
   */
  | {
      readonly kind: "endpoint";
      readonly ip: IPAddress;
      readonly protocol: L4Protocol;
      readonly port: number;
    };
export type IpsetKey = readonly IpsetKeyPart[];

/**
 * A match either holds, fails, or (statistic --mode random) holds with a probability.
 * `unknown-state` names a condition the tracer must split on (e.g. recent first packet vs repeat).
 */
export type MatchOutcome =
  | { readonly kind: "match" }
  | { readonly kind: "no-match" }
  | { readonly kind: "branch"; readonly probability: number };

export const BUILTIN_CHAINS: Readonly<Record<TableName, readonly Hook[]>> = {
  raw: ["PREROUTING", "OUTPUT"],
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
  filter: ["INPUT", "FORWARD", "OUTPUT"],
  security: ["INPUT", "FORWARD", "OUTPUT"],
};
