/**
 * The node the generated rules are for (`--node-env`, kind NodeEnvironment in interfaces.md).
 */
import type { IPFamily } from "../net/index.js";

export interface NodeInterface {
  readonly name: string;
  /** CIDR strings; an address without a prefix length is a host address. */
  readonly addresses: readonly string[];
}

/**
 * A route of the node's main table, with `ip -j route`'s field names (so a node snapshot's
 * `ip -j route` output fills it as is): `dst` "default" or a CIDR, the `gateway` (next hop)
 * and/or the outgoing `dev`. Connected routes (each interface address's prefix) are implied.
 * The tracer uses routes for the outgoing interface and MASQUERADE's source address.
 */
export interface NodeRoute {
  readonly dst: string;
  readonly gateway?: string;
  readonly dev?: string;
}

export interface KernelCapabilities {
  readonly iptablesRandomFully: boolean;
  readonly nfacct: readonly string[];
  readonly conntrackTCPBeLiberal: boolean;
  readonly ipvs: boolean;
  readonly sctp: boolean;
}

export interface NodeEnvironment {
  readonly nodeName: string;
  readonly ipFamilies: readonly IPFamily[];
  readonly nodeIPs: readonly string[];
  readonly interfaces: readonly NodeInterface[];
  /**
   * Routes besides the connected ones. Default (left out or empty): none, so a destination
   * outside every interface prefix leaves by the first non-loopback interface with itself as
   * the next hop (no default gateway known).
   */
  readonly routes?: readonly NodeRoute[];
  readonly kernel: KernelCapabilities;
}

export const DEFAULT_KERNEL: KernelCapabilities = {
  iptablesRandomFully: false,
  nfacct: [],
  conntrackTCPBeLiberal: false,
  ipvs: true,
  sctp: true,
};
