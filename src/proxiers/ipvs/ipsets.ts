/**
 * The 17 ipsets of the IPVS proxier (spec §4), in the order kube-proxy creates them (which is
 * the order `ipset save` lists them), with their types and the comment text the iptables
 * rules that reference them carry. The IPv6 proxier names them `KUBE-6-…`, cut to 31 chars
 * (ipset's name limit), in the same namespace as the IPv4 ones.
 */
import type { IPFamily } from "../../net/index.js";
import { formatIpsetSave, type Ipset, type IpsetEntry } from "../../netfilter/ipset/index.js";

export type IpvsIpsetType =
  "hash:ip" | "hash:ip,port" | "hash:ip,port,ip" | "hash:ip,port,net" | "bitmap:port";

export type IpvsIpsetId =
  | "LOOP-BACK"
  | "CLUSTER-IP"
  | "EXTERNAL-IP"
  | "EXTERNAL-IP-LOCAL"
  | "LOAD-BALANCER"
  | "LOAD-BALANCER-FW"
  | "LOAD-BALANCER-LOCAL"
  | "LOAD-BALANCER-SOURCE-IP"
  | "LOAD-BALANCER-SOURCE-CIDR"
  | "NODE-PORT-TCP"
  | "NODE-PORT-LOCAL-TCP"
  | "NODE-PORT-UDP"
  | "NODE-PORT-LOCAL-UDP"
  | "NODE-PORT-SCTP-HASH"
  | "NODE-PORT-LOCAL-SCTP-HASH"
  | "HEALTH-CHECK-NODE-PORT"
  | "IPVS-IPS";

export interface IpvsIpsetDefinition {
  readonly id: IpvsIpsetId;
  readonly type: IpvsIpsetType;
  readonly comment: string;
}

export const IPVS_IPSETS: readonly IpvsIpsetDefinition[] = [
  {
    id: "LOOP-BACK",
    type: "hash:ip,port,ip",
    comment: "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose",
  },
  {
    id: "CLUSTER-IP",
    type: "hash:ip,port",
    comment: "Kubernetes service cluster ip + port for masquerade purpose",
  },
  {
    id: "EXTERNAL-IP",
    type: "hash:ip,port",
    comment: "Kubernetes service external ip + port for masquerade and filter purpose",
  },
  {
    id: "EXTERNAL-IP-LOCAL",
    type: "hash:ip,port",
    comment: "Kubernetes service external ip + port with externalTrafficPolicy=local",
  },
  { id: "LOAD-BALANCER", type: "hash:ip,port", comment: "Kubernetes service lb portal" },
  {
    id: "LOAD-BALANCER-FW",
    type: "hash:ip,port",
    comment: "Kubernetes service load balancer ip + port for load balancer with sourceRange",
  },
  {
    id: "LOAD-BALANCER-LOCAL",
    type: "hash:ip,port",
    comment: "Kubernetes service load balancer ip + port with externalTrafficPolicy=local",
  },
  {
    id: "LOAD-BALANCER-SOURCE-IP",
    type: "hash:ip,port,ip",
    comment: "Kubernetes service load balancer ip + port + source IP for packet filter purpose",
  },
  {
    id: "LOAD-BALANCER-SOURCE-CIDR",
    type: "hash:ip,port,net",
    comment: "Kubernetes service load balancer ip + port + source cidr for packet filter purpose",
  },
  {
    id: "NODE-PORT-TCP",
    type: "bitmap:port",
    comment: "Kubernetes nodeport TCP port for masquerade purpose",
  },
  {
    id: "NODE-PORT-LOCAL-TCP",
    type: "bitmap:port",
    comment: "Kubernetes nodeport TCP port with externalTrafficPolicy=local",
  },
  {
    id: "NODE-PORT-UDP",
    type: "bitmap:port",
    comment: "Kubernetes nodeport UDP port for masquerade purpose",
  },
  {
    id: "NODE-PORT-LOCAL-UDP",
    type: "bitmap:port",
    comment: "Kubernetes nodeport UDP port with externalTrafficPolicy=local",
  },
  {
    id: "NODE-PORT-SCTP-HASH",
    type: "hash:ip,port",
    comment: "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'",
  },
  {
    id: "NODE-PORT-LOCAL-SCTP-HASH",
    type: "hash:ip,port",
    comment:
      "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'",
  },
  {
    id: "HEALTH-CHECK-NODE-PORT",
    type: "bitmap:port",
    comment: "Kubernetes health check node port",
  },
  { id: "IPVS-IPS", type: "hash:ip", comment: "Addresses on the ipvs interface" },
];

/** ipset's maximum set-name length (IPSET_MAXNAMELEN - 1). */
export const MAX_IPSET_NAME_LENGTH = 31;

export function ipsetName(id: IpvsIpsetId, family: IPFamily): string {
  const name = family === "IPv6" ? `KUBE-6-${id}` : `KUBE-${id}`;
  return name.slice(0, MAX_IPSET_NAME_LENGTH);
}

export function ipsetDefinition(id: IpvsIpsetId): IpvsIpsetDefinition {
  const d = IPVS_IPSETS.find((s) => s.id === id);
  if (d === undefined) throw new Error(`no ipset ${id}`);
  return d;
}

/** One set with its desired entries, as data (the netfilter ipset model's entries). */
export interface IpvsIpset {
  readonly id: IpvsIpsetId;
  readonly name: string;
  readonly type: IpvsIpsetType;
  readonly family: IPFamily;
  readonly comment: string;
  /** In `add` order (kube-proxy's: sorted by the element's text). */
  readonly entries: readonly IpsetEntry[];
}

/** A bitmap:port set takes every port; kube-proxy's hash sets use ipset's default sizes. */
const ALL_PORTS = Object.freeze({ from: 0, to: 65535 });

/**
 * The set as the kernel holds it once kube-proxy created it (without the random
 * bucketsize/initval): what `ipset save` lists and the tracer's set match consults.
 */
export function ipvsIpsetModel(set: IpvsIpset): Ipset {
  const base = {
    name: set.name,
    type: set.type,
    hashsize: 1024,
    maxelem: 65536,
    counters: false,
    comment: false,
    entries: set.entries,
  };
  // bitmap:port has no family of its own; the model records IPv4.
  return set.type === "bitmap:port"
    ? { ...base, family: "IPv4", range: ALL_PORTS }
    : { ...base, family: set.family };
}

/** `ipset save` text for the sets, in the given order, printed from their data. */
export function formatIpvsIpsets(sets: readonly IpvsIpset[]): string {
  return formatIpsetSave(sets.map(ipvsIpsetModel));
}
