/**
 * `diff [CHECKPOINT]`: the session's current snapshot against the previous one (or a named
 * checkpoint), in three parts: objects, the node's rendered rules, and verdicts.
 */
import type { Cluster } from "../model/cluster.js";
import type { PacketSpec } from "../netfilter/trace/index.js";
import { formatObjectChanges, objectChanges } from "./diff-objects.js";
import { formatRuleChanges, renderedLines, ruleChanges, type NodeSettings } from "./diff-rules.js";
import {
  formatPolicyFlips,
  formatTraceChanges,
  policyFlips,
  traceChanges,
} from "./diff-verdicts.js";

export interface DiffContext {
  /** The node the rules are for in a snapshot, or why there is none. */
  readonly settings: (cluster: Cluster) => NodeSettings | { readonly error: string };
  readonly packets: readonly PacketSpec[];
}

export function diffSnapshots(before: Cluster, after: Cluster, ctx: DiffContext): string {
  const out: string[] = [];
  const objects = formatObjectChanges(objectChanges(before, after));
  out.push(objects.length > 0 ? "objects:" : "objects: no change", ...objects);
  const sa = ctx.settings(before);
  const sb = ctx.settings(after);
  if ("error" in sa || "error" in sb) {
    out.push(`rules: not compared (${"error" in sb ? sb.error : "error" in sa ? sa.error : ""})`);
  } else {
    const rules = formatRuleChanges(
      ruleChanges(renderedLines(before, sa), renderedLines(after, sb)),
    );
    out.push(rules.length > 0 ? "rules:" : "rules: no change", ...rules);
  }
  const verdicts = [
    ...formatPolicyFlips(policyFlips(before, after)),
    ...("error" in sa || "error" in sb
      ? []
      : formatTraceChanges(traceChanges(before, after, { before: sa, after: sb }, ctx.packets))),
  ];
  out.push(verdicts.length > 0 ? "verdicts:" : "verdicts: no change", ...verdicts);
  return `${out.join("\n")}\n`;
}
