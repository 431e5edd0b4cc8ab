/** What an IP family means in nftables words (spec §1.1). */
import type { IPFamily } from "../../net/index.js";
import type { DataType } from "../../netfilter/nftables/model.js";

export interface NftFamilyWords {
  /** Table family and address payload protocol: `ip` or `ip6`. */
  readonly word: "ip" | "ip6";
  readonly addressType: DataType;
  /** The loopback range NodePorts are never served on. */
  readonly loopback: string;
}

export function familyWords(family: IPFamily): NftFamilyWords {
  return family === "IPv4"
    ? { word: "ip", addressType: "ipv4_addr", loopback: "127.0.0.0/8" }
    : { word: "ip6", addressType: "ipv6_addr", loopback: "::1" };
}
