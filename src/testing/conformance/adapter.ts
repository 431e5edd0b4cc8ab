/**
 * The dataplane under test, as the conformance suites see it (issue 13 §6): given a cluster, the
 * node's environment and the pods on that node, an adapter returns what a real node would show —
 * iptables-save text per family and/or `nft list ruleset` text, optionally `ipset save` and
 * `ipvsadm-save -n` text — and how each
 * pod attaches (the node-side interface a CNI plugin made for it). kube-netsim traces probes
 * through exactly that state; it never looks at how the plugin computed it.
 */
import type { Cluster } from "../../model/cluster.js";
import type { Pod } from "../../model/kinds.js";
import type { NodeEnvironment, NodeInterface } from "../../model/node-environment.js";

/** What a dataplane implements; the suites define the tests of the features it claims. */
export type ConformanceFeature = "services" | "hostPorts" | "networkPolicy";

export interface AdapterInput {
  readonly cluster: Cluster;
  readonly node: NodeEnvironment;
  /** The cluster's pods scheduled on `node` (spec.nodeName), with their IPs. */
  readonly pods: readonly Pod[];
}

/** A socket a node component holds open (kubenet reserves host ports this way). */
export interface NodeSocket {
  readonly protocol: "tcp" | "udp" | "sctp";
  readonly port: number;
}

export interface NodeState {
  /**
   * `iptables-save` / `ip6tables-save` text; at least one family, unless `nftables` is given
   * (a dataplane that writes only nftables may leave it out).
   */
  readonly iptables?: { readonly IPv4?: string; readonly IPv6?: string };
  /**
   * The node's nftables rule set: what `nft list ruleset` prints (or `nft -f` input). Its base
   * chains run among the iptables tables by hook priority, as in the kernel.
   */
  readonly nftables?: string;
  /** `ipset save` text. */
  readonly ipsets?: string;
  /** `ipvsadm-save -n` text. */
  readonly ipvs?: string;
  /** Interfaces the dataplane adds to the node (e.g. kube-ipvs0 holding service addresses). */
  readonly interfaces?: readonly NodeInterface[];
  /** Node-side interface per pod IP (`cali1234…`, `veth…`); default: a stable `veth` name. */
  readonly attachments?: Readonly<Record<string, string>>;
  /** Sockets the node components open for this state (for the sctp.ko side condition). */
  readonly sockets?: readonly NodeSocket[];
}

export interface ConformanceAdapter {
  /** Shown in the suite's describe block and in failures. */
  readonly name: string;
  readonly features: readonly ConformanceFeature[];
  /**
   * Whose service rules the dataplane's resemble, for the test plan's proxier-named test
   * ("Services can declare SCTP ServicePorts when using the nftables proxier"); default
   * "iptables", the name the plan gives that test.
   */
  readonly proxier?: "iptables" | "ipvs" | "nftables";
  nodeState(input: AdapterInput): NodeState | Promise<NodeState>;
}
