/** `-m comment --comment TEXT`: always matches. The kernel keeps at most 255 bytes. */
import { ALWAYS, ARG, fail, MATCH, single, type MatchExtension } from "./extension.js";
import { saveString } from "./save-string.js";
import { keptByteLength } from "../../util/byte-text.js";

export interface CommentMatch {
  readonly module: "comment";
  readonly comment: string;
}

export const commentMatch: MatchExtension<CommentMatch> = {
  module: "comment",
  options: { "--comment": ARG },
  build(options) {
    const c = single(options, "comment").get("--comment");
    if (c === undefined) fail(`comment: "--comment" is required`);
    const text = c.args[0] as string;
    // Bytes, counting a byte kept from invalid UTF-8 (src/util/byte-text.ts) as one byte.
    if (text.length > 85 && keptByteLength(text) > 255)
      fail(`comment: comment too long (at most 255 bytes)`);
    return { module: "comment", comment: text };
  },
  format: (m) => `--comment ${saveString(m.comment)}`,
  reads: () => 0,
  // kube-proxy puts one on nearly every rule: the compiled rule leaves it out.
  compile: () => ALWAYS,
  evaluate: () => MATCH,
};
