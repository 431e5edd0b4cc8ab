/**
 * ipset sets as `ipset save` shows them. The dimensions of a set type are its words after the
 * colon (`hash:ip,port,net` → ip, port, net); an entry has one part per dimension.
 */
import type { CIDR, IPAddress, IPFamily, PortRange } from "../../net/index.js";

export type IpsetType =
  | "hash:ip"
  | "hash:ip,port"
  | "hash:ip,port,ip"
  | "hash:ip,port,net"
  | "hash:net"
  | "hash:net,port"
  | "bitmap:port";

export const IPSET_TYPES: readonly IpsetType[] = [
  "hash:ip",
  "hash:ip,port",
  "hash:ip,port,ip",
  "hash:ip,port,net",
  "hash:net",
  "hash:net,port",
  "bitmap:port",
];

export type IpsetDimension = "ip" | "port" | "net";
export type IpsetPortProtocol = "tcp" | "udp" | "sctp";

export type IpsetEntryPart =
  | { readonly kind: "ip"; readonly ip: IPAddress }
  | { readonly kind: "net"; readonly cidr: CIDR }
  /** bitmap:port entries have no protocol. */
  | { readonly kind: "port"; readonly protocol?: IpsetPortProtocol; readonly port: number };

export interface IpsetEntry {
  readonly parts: readonly IpsetEntryPart[];
  readonly nomatch: boolean;
  readonly timeout?: number;
  readonly comment?: string;
}

export interface Ipset {
  readonly name: string;
  readonly type: IpsetType;
  /** bitmap:port has no family of its own (it matches either); IPv4 is recorded. */
  readonly family: IPFamily;
  readonly hashsize: number;
  readonly maxelem: number;
  readonly timeout?: number;
  readonly counters: boolean;
  readonly comment: boolean;
  /** bitmap:port only. */
  readonly range?: PortRange;
  /** In `add` order. */
  readonly entries: readonly IpsetEntry[];
}

export interface IpsetState {
  readonly sets: readonly Ipset[];
}

export function ipsetDimensions(type: IpsetType): readonly IpsetDimension[] {
  return type.slice(type.indexOf(":") + 1).split(",") as IpsetDimension[];
}
