export * from "./model.js";
export { parseIpsetSave } from "./parse.js";
export { formatIpsetSave, formatIpsetCreate, formatIpsetEntry } from "./format.js";
export { ipsetContains, ipsetTest } from "./contains.js";
