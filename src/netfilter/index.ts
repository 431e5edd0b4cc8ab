/** src/netfilter: the Kubernetes-agnostic rule model, parser, formatters, extensions and ipset. */
export * from "./model.js";
export * from "./matches/index.js";
export type { NatRange, TargetKind } from "./targets/index.js";
export * from "./registry.js";
export { ruleMatchesStandard, interfaceMatches } from "./matches/standard.js";
export {
  parseIptables,
  parseIptablesSave,
  sniffFamily,
  type ParseIptablesOptions,
  type IptablesDialect,
} from "./parse/iptables.js";
export { IptablesParseError } from "./parse/errors.js";
export { splitRestoreWords } from "./parse/words.js";
export * from "./format/index.js";
export * from "./ipset/index.js";
export * from "./ipvs/index.js";
