/**
 * What one trace consulted of its packet's source address and port: the part of the packet
 * the flow cache (flow-cache.ts) may leave out of its key. Every other input the walk reads is
 * either in the key exactly (family, protocol, destination, destination port, the caller's
 * origin and interface) or fixed for a new connection (mark 0, conntrack NEW, no fragment).
 *
 * A prefix test only needs the leading bits up to the first one where the address and the
 * network differ (or all `prefix` bits when the address is inside): any address that agrees
 * on those bits gets the same answer. That is what lets one entry serve every client of a
 * service: kube-proxy's `! -s <pod CIDR>` and `-s <endpoint>` tests are decided by a few bits.
 */
import type { FlowReads, Match, Packet } from "../model.js";
import {
  flowReadsOf,
  READS_SPORT,
  READS_SPORT_CLASS,
  READS_SRC,
  READS_VOLATILE,
} from "../packet-fields.js";
import { matchReads } from "../registry.js";
import type { LocalAddress } from "./dataplane.js";

export { READS_SPORT, READS_SPORT_CLASS, READS_SRC, READS_VOLATILE };

/**
 * Which of the source fields a match reads, beyond what the key holds, as the match's
 * extension says (`MatchExtension.reads`, packet-fields.ts `flowReadsOf`).
 */
export function matchFlowReads(m: Match): number {
  return flowReadsOf(matchReads(m));
}

/** Leading bits `a` and `b` share (`width` when equal). */
function commonPrefix(a: number | bigint, b: number | bigint, width: number): number {
  if (typeof a === "number" && typeof b === "number") return Math.clz32((a ^ b) >>> 0);
  const x = BigInt(a) ^ BigInt(b);
  return x === 0n ? width : width - x.toString(2).length;
}

export class FlowRecorder implements FlowReads {
  /** Leading source bits the trace's outcome depends on. */
  srcBits = 0;
  sportRead = false;
  sportClassRead = false;
  volatile = false;
  private readonly width: number;

  constructor(readonly original: Packet) {
    this.width = original.family === "IPv4" ? 32 : 128;
  }

  srcPrefix(ip: Packet["src"], network: number | bigint, prefix: number): void {
    // A source written by SNAT/MASQUERADE is a constant of the path, not the packet's.
    if (ip !== this.original.src || this.srcBits >= prefix) return;
    const needed = Math.min(prefix, commonPrefix(ip.value, network, this.width) + 1);
    if (needed > this.srcBits) this.srcBits = needed;
  }

  reads(bits: number, packet: Packet): void {
    if (bits & READS_SRC && packet.src === this.original.src) this.srcBits = this.width;
    // Ports are numbers: whether this one is still the packet's own cannot be told, so any read counts.
    if (bits & READS_SPORT) this.sportRead = true;
    if (bits & READS_VOLATILE) this.volatile = true;
    if (bits & READS_SPORT_CLASS) this.sportClassRead = true;
  }

  /** The node's own addresses decide origin and incoming interface (addressing.ts). */
  addressing(addresses: readonly LocalAddress[]): void {
    for (const a of addresses) {
      if (a.cidr.family !== this.original.family) continue;
      this.srcPrefix(this.original.src, a.cidr.address.value, this.width);
      this.srcPrefix(this.original.src, a.cidr.network.value, a.cidr.prefix);
    }
  }
}
