/**
 * What a trace returns: plain data in the shape of the `trace --output json` contract
 * (shared/docs/interfaces.md), plus additive fields (mark, source, delivery, conntrack,
 * scenarios, explanation). Addresses are printed strings so the result serialises as is.
 */
import type { Hook, TableName } from "../model.js";
import { joinHostPort } from "../../net/index.js";

export type TraceProtocol = "tcp" | "udp" | "sctp" | "icmp";

/** The packet to trace, as a user writes it. `sport` defaults to 40000. */
export interface PacketSpec {
  readonly proto: TraceProtocol;
  readonly src: string;
  readonly sport?: number;
  readonly dst: string;
  readonly dport: number;
  /** Where a remote packet enters; default: the interface whose subnet holds `src`. */
  readonly inInterface?: string;
  /** Default: "local" when `src` is a local address of the node, else "remote". */
  readonly origin?: TraceOrigin;
}

export type TraceOrigin = "remote" | "local";

export type TraceVerdict = "DNAT" | "ACCEPT" | "DROP" | "REJECT" | "NONE";

/** Where an accepted packet went after the routing decision. */
export type Delivery = "local" | "forward" | "ipvs" | "stopped";

/** A conntrack entry as two tuples, both printed (`ip`, ports). */
export interface ConntrackTuple {
  readonly src: string;
  readonly sport: number;
  readonly dst: string;
  readonly dport: number;
}
export interface ConntrackEntry {
  readonly proto: TraceProtocol;
  readonly family: "IPv4" | "IPv6";
  readonly original: ConntrackTuple;
  /** What a reply looks like on the wire (after the translations were applied). */
  readonly reply: ConntrackTuple;
  readonly dnat: boolean;
  readonly snat: boolean;
  readonly mark: number;
}

export interface TraceOutcome {
  readonly verdict: TraceVerdict;
  /** `ip:port` (`[ip6]:port`) after DNAT; set only when the destination was translated. */
  readonly destination?: string;
  /** A MASQUERADE/SNAT was applied (in POSTROUTING or nat INPUT). */
  readonly masquerade: boolean;
  /** Exact probability (products and sums of the statistic probabilities). */
  readonly probability: number;
  /** Every matched rule with a target, `table/CHAIN#n` (n 1-based), in traversal order. */
  readonly path: readonly string[];
  /** The packet mark at the end, `0x…`. */
  readonly mark: string;
  /** `ip:port` after source NAT, when masqueraded. */
  readonly source?: string;
  /**
   * `from-to`: the source NAT draws the port at random from this range for each connection
   * (`--random`, `--random-fully`, a port outside `--to-source`'s range); `source` shows one.
   */
  readonly sourcePorts?: string;
  readonly delivery: Delivery;
  /** The connection as conntrack recorded it (absent for DROP/REJECT/untracked). */
  readonly conntrack?: ConntrackEntry;
}

/** One step of the walk, for explanations. */
export type TraceStep =
  | { readonly kind: "hook"; readonly hook: Hook; readonly table: TableName }
  | {
      readonly kind: "rule";
      readonly table: TableName;
      readonly chain: string;
      /** 1-based. */
      readonly index: number;
      readonly target: string;
      /** Set when a statistic match was taken with this probability. */
      readonly probability?: number;
    }
  | {
      readonly kind: "branch-not-taken";
      readonly table: TableName;
      readonly chain: string;
      readonly index: number;
      readonly probability: number;
    }
  | {
      readonly kind: "policy";
      readonly table: TableName;
      readonly chain: string;
      readonly policy: string;
    }
  | {
      readonly kind: "route";
      readonly decision: "local" | "forward";
      readonly outInterface: string;
    }
  | { readonly kind: "dnat"; readonly from: string; readonly to: string }
  | { readonly kind: "snat"; readonly from: string; readonly to: string }
  | { readonly kind: "mark"; readonly from: string; readonly to: string }
  | { readonly kind: "nat-skipped"; readonly hook: Hook; readonly reason: string }
  | {
      readonly kind: "ipvs";
      readonly virtualServer: string;
      readonly realServer: string;
      readonly probability: number;
    }
  | { readonly kind: "ipvs-no-real-servers"; readonly virtualServer: string }
  | { readonly kind: "verdict"; readonly verdict: TraceVerdict; readonly where: string };

export type RecentScenario = "first-packet" | "repeat-within-timeout";

export interface ScenarioResult {
  readonly scenario: RecentScenario;
  readonly outcomes: readonly TraceOutcome[];
}

export interface TraceExplanation {
  /** Why the packet counts as remote or local. */
  readonly origin: string;
  readonly inInterface: string;
  /** Steps of each outcome, aligned with `outcomes` (for merged outcomes: the first branch). */
  readonly outcomes: readonly (readonly TraceStep[])[];
  /** Notes about modelling choices that affected this trace. */
  readonly notes: readonly string[];
}

export interface TraceResult {
  readonly packet: {
    readonly proto: TraceProtocol;
    readonly src: string;
    readonly sport: number;
    readonly dst: string;
    readonly dport: number;
  };
  readonly origin: TraceOrigin;
  /** Which `recent` scenario `outcomes` describe: always the first packet of the client. */
  readonly scenario: RecentScenario;
  readonly outcomes: readonly TraceOutcome[];
  /** Present when a `recent` match was consulted: both scenarios, the first equal to `outcomes`. */
  readonly scenarios?: readonly ScenarioResult[];
  readonly explanation: TraceExplanation;
}

/**
 * The traced packet as one line: `tcp 10.0.0.1:40000 -> [fd00::1]:80`; an ICMP packet (an echo
 * request) as `icmp 10.0.0.1 -> 10.0.0.2 (echo request)`, with no ports.
 */
export function formatTracedPacket(p: TraceResult["packet"]): string {
  return p.proto === "icmp"
    ? `icmp ${p.src} -> ${p.dst} (echo request)`
    : `${p.proto} ${joinHostPort(p.src, p.sport)} -> ${joinHostPort(p.dst, p.dport)}`;
}
