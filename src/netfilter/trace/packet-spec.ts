/** Turning a user's PacketSpec into the Packet the rules see (errors are TraceInputError). */
import { formatIP, parseIP, type IPAddress } from "../../net/index.js";
import { fastIPv4 } from "../matches/values.js";
import type { L4Protocol, Packet } from "../model.js";
import type { PacketSpec, TraceProtocol } from "./result.js";
import { inputIssue, ValidationError, type IssueAt } from "../../issue/validation-error.js";

/** A packet a user described that is not one (bad protocol, address or port): bad input. */
export class TraceInputError extends ValidationError {
  constructor(message: string, at?: IssueAt) {
    super([inputIssue("invalid", message, at)]);
    this.name = "TraceInputError";
  }
}

export const DEFAULT_SPORT = 40000;
const PROTOCOLS: readonly TraceProtocol[] = ["tcp", "udp", "sctp", "icmp"];

export function parseTraceProtocol(s: string): TraceProtocol {
  if (s === "tcp" || s === "udp" || s === "sctp" || s === "icmp") return s;
  const p = s.toLowerCase();
  if ((PROTOCOLS as readonly string[]).includes(p)) return p as TraceProtocol;
  throw new TraceInputError(`protocol "${s}": expected one of tcp, udp, sctp, icmp`);
}

/**
 * A canonical dotted quad (decimal octets without leading zeros, as `formatIP` prints them),
 * read by hand: the batch and benchmark hot path. Anything else: undefined, and `parseIP`
 * decides. Same value as `parseIP(s, "lenient")` for these strings.
 */
const canonicalIPv4 = (s: string): number | undefined => fastIPv4(s, true);

/**
 * `ipv4(value)` with an allocation site of its own: V8 decides per site whether to allocate
 * in the old generation, and the parser's millions of long-lived addresses teach `ipv4`'s site
 * to do so; a packet's addresses die young (measured after parsing bench/trace.ts's rule set:
 * 0.8 µs per spec through `ipv4`, 0.2 µs with this).
 */
function packetIPv4(value: number): IPAddress {
  return { family: "IPv4", value: value >>> 0 };
}

function address(what: string, s: string): IPAddress {
  const a = parseIP(s, "lenient");
  if (a === undefined) throw new TraceInputError(`${what} "${s}" is not an IP address`);
  return a;
}

function port(what: string, n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new TraceInputError(`${what} ${n} is not a port number (0-65535)`);
  return n;
}

export interface ParsedSpec {
  readonly packet: Packet;
  readonly printed: {
    readonly proto: TraceProtocol;
    readonly src: string;
    readonly sport: number;
    readonly dst: string;
    readonly dport: number;
  };
}

/** The packet as it is before the node touches it (no interfaces, mark 0, conntrack NEW). */
export function parsePacketSpec(spec: PacketSpec): ParsedSpec {
  const proto = parseTraceProtocol(spec.proto);
  // A canonical dotted quad is read by hand and prints as itself (the batch hot path).
  const src4 = canonicalIPv4(spec.src);
  const dst4 = canonicalIPv4(spec.dst);
  const src = src4 !== undefined ? packetIPv4(src4) : address("source", spec.src);
  const dst = dst4 !== undefined ? packetIPv4(dst4) : address("destination", spec.dst);
  if (src.family !== dst.family)
    throw new TraceInputError(
      `source ${spec.src} and destination ${spec.dst} are of different IP families`,
    );
  const sport = port("source port", spec.sport ?? DEFAULT_SPORT);
  const dport = port("destination port", spec.dport);
  const protocol: L4Protocol = proto === "icmp" && src.family === "IPv6" ? "icmpv6" : proto;
  const icmp = proto === "icmp";
  // Every field present, in one order (packetWith's shape): absent ones are undefined, which
  // no match tells apart from missing.
  const packet = {
    family: src.family,
    protocol,
    src,
    sport,
    dst,
    dport,
    inInterface: "",
    outInterface: "",
    mark: 0,
    connmark: 0,
    ctState: NEW,
    ctOrig: undefined,
    icmpType: icmp ? (protocol === "icmpv6" ? 128 : 8) : undefined,
    icmpCode: icmp ? 0 : undefined,
    fragment: false,
    tcpFlags: undefined,
    ctDirection: undefined,
  } as unknown as Packet;
  return {
    packet,
    printed: {
      proto,
      src: src4 !== undefined ? spec.src : formatIP(src),
      sport,
      dst: dst4 !== undefined ? spec.dst : formatIP(dst),
      dport,
    },
  };
}

/** Shared: the walk never changes a state list in place. */
const NEW: Packet["ctState"] = ["NEW"];
