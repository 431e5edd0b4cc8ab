/** The kube-netsim library. This file only re-exports. */
export * from "./net/index.js";
export * from "./model/index.js";
export * from "./policy/index.js";
export * from "./netfilter/index.js";
export * from "./netfilter/trace/index.js";
export * from "./hostports/index.js";
export * from "./proxiers/index.js";
export * from "./backends/simulator/node-dataplane.js";
export {
  renderNftables,
  type NftablesResult,
  type NftablesOptions,
} from "./proxiers/nftables/index.js";
export {
  dumpTable as formatNftablesDump,
  listTable as formatNftablesList,
} from "./netfilter/nftables/index.js";
export { parseNftables, NftParseError, type NftRuleSet } from "./netfilter/nftables/parse/index.js";
