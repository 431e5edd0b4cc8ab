/** `trace --ipsets FILE`: ipset save text as the membership the tracer's set match consults. */
import type { IpsetMembership } from "../../netfilter/trace/index.js";
import { CliError } from "../exit.js";

export function readIpsets(text: string, file: string): IpsetMembership {
  void text;
  throw new CliError(`--ipsets ${file}: reading ipset save text is not available yet`);
}
