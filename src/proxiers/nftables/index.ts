/**
 * kube-proxy's nftables proxier (shared/spec/kube-proxy-nftables.md) on top of proxiers/common:
 * `renderNftables(cluster, { proxyConfig, node })` → `{ dump, transaction, list, ruleSet }`.
 */
export { renderNftables, nftablesTable } from "./render-nftables.js";
export type { NftablesResult, NftablesFamilyResult } from "./render-nftables.js";
export type { NftablesOptions, MarkFormat } from "./settings.js";
