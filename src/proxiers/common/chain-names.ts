/**
 * The fixed chain names of kube-proxy's iptables and IPVS modes (shared/spec/kube-proxy-iptables.md
 * §3, kube-proxy-ipvs.md §5.2). No call site builds a `KUBE-…` string itself: these constants,
 * and the per-service helpers of iptables/chain-names.ts, are the only spellings.
 */

/** nat: the entry from PREROUTING/OUTPUT; filter: services without endpoints (iptables). */
export const KUBE_SERVICES = "KUBE-SERVICES";
/** nat POSTROUTING's jump: masquerades what KUBE-MARK-MASQ marked. */
export const KUBE_POSTROUTING = "KUBE-POSTROUTING";
/** Marks a packet for masquerading. */
export const KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
/** filter FORWARD's jump: accepts marked and established service traffic. */
export const KUBE_FORWARD = "KUBE-FORWARD";
/** filter: LoadBalancer source ranges (iptables: drops; IPVS: jumps to the source-range check). */
export const KUBE_PROXY_FIREWALL = "KUBE-PROXY-FIREWALL";

// iptables mode only.
export const KUBE_EXTERNAL_SERVICES = "KUBE-EXTERNAL-SERVICES";
export const KUBE_NODEPORTS = "KUBE-NODEPORTS";
/** kubelet's anti-martian chain, which kube-proxy also writes (IPv4 + localhost NodePorts). */
export const KUBE_FIREWALL = "KUBE-FIREWALL";

// IPVS mode only.
export const KUBE_NODE_PORT = "KUBE-NODE-PORT";
export const KUBE_LOAD_BALANCER = "KUBE-LOAD-BALANCER";
export const KUBE_SOURCE_RANGES_FIREWALL = "KUBE-SOURCE-RANGES-FIREWALL";
export const KUBE_IPVS_FILTER = "KUBE-IPVS-FILTER";
export const KUBE_IPVS_OUT_FILTER = "KUBE-IPVS-OUT-FILTER";
