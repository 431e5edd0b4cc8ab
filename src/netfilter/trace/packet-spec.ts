/** Turning a user's PacketSpec into the Packet the rules see (errors are TraceInputError). */
import { formatIP, parseIP, type IPAddress } from "../../net/index.js";
import type { L4Protocol, Packet } from "../model.js";
import type { PacketSpec, TraceProtocol } from "./result.js";

export class TraceInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceInputError";
  }
}

export const DEFAULT_SPORT = 40000;
const PROTOCOLS: readonly TraceProtocol[] = ["tcp", "udp", "sctp", "icmp"];

export function parseTraceProtocol(s: string): TraceProtocol {
  const p = s.toLowerCase();
  if ((PROTOCOLS as readonly string[]).includes(p)) return p as TraceProtocol;
  throw new TraceInputError(`protocol "${s}": expected one of tcp, udp, sctp, icmp`);
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
  const src = address("source", spec.src);
  const dst = address("destination", spec.dst);
  if (src.family !== dst.family)
    throw new TraceInputError(
      `source ${spec.src} and destination ${spec.dst} are of different IP families`,
    );
  const sport = port("source port", spec.sport ?? DEFAULT_SPORT);
  const dport = port("destination port", spec.dport);
  const protocol: L4Protocol = proto === "icmp" && src.family === "IPv6" ? "icmpv6" : proto;
  const packet: Packet = {
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
    ctState: ["NEW"],
    fragment: false,
    ...(proto === "icmp" ? { icmpType: protocol === "icmpv6" ? 128 : 8, icmpCode: 0 } : {}),
  };
  return { packet, printed: { proto, src: formatIP(src), sport, dst: formatIP(dst), dport } };
}
