/** The nftables engine (Kubernetes-agnostic): model, knftables Dump, canonical `nft list`. */
export * from "./model.js";
export { TableBuilder } from "./builder.js";
export { dumpTable, inDumpOrder } from "./dump.js";
export { listTable, priorityText } from "./list.js";
export { sortNftablesTransaction } from "./upstream-sort.js";
export { parseNftables, NftParseError, type NftRuleSet } from "./parse/index.js";
