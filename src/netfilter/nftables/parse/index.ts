/** Parsing what `nft -f` takes: knftables transaction lines and the nested `nft list` form. */
export { parseNftables, type NftRuleSet } from "./file.js";
export { NftParseError } from "./tokens.js";
