/**
 * The node the generated rules are for (`--node-env`, kind NodeEnvironment in interfaces.md).
 */
import type { IPFamily } from "../net/index.js";

export interface NodeInterface {
  readonly name: string;
  /** CIDR strings; an address without a prefix length is a host address. */
  readonly addresses: readonly string[];
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
  readonly kernel: KernelCapabilities;
}

export const DEFAULT_KERNEL: KernelCapabilities = {
  iptablesRandomFully: false,
  nfacct: [],
  conntrackTCPBeLiberal: false,
  ipvs: true,
  sctp: true,
};
