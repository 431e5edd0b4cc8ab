/** The kube-proxy IPVS proxier (spec: shared/spec/ipvs-proxier.md). */
export * from "./ipsets.js";
export * from "./node-addresses.js";
export * from "./sync.js";
export * from "./iptables-rules.js";
export * from "./render.js";
