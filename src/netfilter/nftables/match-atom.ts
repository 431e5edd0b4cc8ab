/** One packet value against one element or literal, read by its nftables data type. */
import { cidrContains, parseCIDR, parseIP, ipEquals } from "../../net/index.js";
import type { DataType } from "./model.js";
import { parseRange } from "./interval.js";

export interface NftPacket {
  readonly family: "ip" | "ip6";
  /** Lowercase protocol name (`tcp`, `udp`, `sctp`, `icmp`, ...). */
  readonly protocol: string;
  readonly src: string;
  readonly dst: string;
  readonly sport: number;
  readonly dport: number;
  readonly mark: number;
  readonly iifname?: string;
  readonly oifname?: string;
  /** `new`, `established`, `related`, `invalid`, `untracked`. */
  readonly ctState: string;
  /** e.g. `dnat`, `snat`, `confirmed`. */
  readonly ctStatus: readonly string[];
  /** The connection's mark (`ct mark`); absent: 0. */
  readonly ctMark?: number;
}

const PROTO_NUMBERS: Readonly<Record<string, string>> = {
  "6": "tcp",
  "17": "udp",
  "132": "sctp",
  "1": "icmp",
  "58": "ipv6-icmp",
};

export function matchAtom(type: DataType | undefined, actual: string, written: string): boolean {
  switch (type) {
    case "ipv4_addr":
    case "ipv6_addr": {
      const ip = parseIP(actual, "lenient");
      if (ip === undefined) return false;
      if (written.includes("/")) {
        const c = parseCIDR(written, "lenient");
        return c !== undefined && cidrContains(c, ip);
      }
      if (written.includes("-")) {
        const r = parseRange(written);
        const v = ip.family === "IPv4" ? BigInt(ip.value) : ip.value;
        return r !== undefined && r.family === ip.family && r.range.lo <= v && v <= r.range.hi;
      }
      const w = parseIP(written, "lenient");
      return w !== undefined && ipEquals(w, ip);
    }
    case "inet_service": {
      const dash = written.indexOf("-");
      const n = Number(actual);
      if (dash > 0)
        return Number(written.slice(0, dash)) <= n && n <= Number(written.slice(dash + 1));
      return Number(written) === n;
    }
    case "inet_proto":
      return (PROTO_NUMBERS[written] ?? written) === (PROTO_NUMBERS[actual] ?? actual);
    case "mark":
      return Number(written) >>> 0 === Number(actual) >>> 0;
    case "ifname":
      return written.endsWith("*") ? actual.startsWith(written.slice(0, -1)) : actual === written;
    case "verdict":
    case undefined:
      return actual === written;
    default: {
      const never: never = type;
      return never;
    }
  }
}
