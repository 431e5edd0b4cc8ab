/** `trace --ipsets FILE`: ipset save text as the membership the tracer's set match consults. */
import { ipsetTest, parseIpsetSave } from "../../netfilter/ipset/index.js";
import type { IpsetMembership } from "../../netfilter/trace/index.js";

/** Throws IptablesParseError (FILE:LINE: message) on bad input. */
export function readIpsets(text: string, file: string): IpsetMembership {
  const sets = parseIpsetSave(text, file);
  return { test: (name, key) => ipsetTest(sets, name, key) };
}
