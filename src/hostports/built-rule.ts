/**
 * One hostport rule built as data with the netfilter rule builder: the typed rule and its
 * restore text (`written`) come from the same clauses, so nothing is parsed back. The builder
 * logs the clauses and writes the words; the typed rule is the replay of that log.
 */
import type { IPFamily } from "../net/index.js";
import { replayRule, RuleBuilder } from "../netfilter/build/rule-builder.js";
import { SharedRuleValues, TypedRuleBuilder } from "../netfilter/build/typed-rule-builder.js";
import { Utf8Chunks } from "../netfilter/build/utf8-chunks.js";
import type { NatRule } from "./nat-table.js";

/** The chain name only frames the words the builder writes; it is cut from `written`. */
const CHAIN = "X";

/** Builds one rule: `write` calls the clauses in the order the component writes its words. */
export function buildRule(family: IPFamily, write: (b: RuleBuilder) => void): NatRule {
  const values = new SharedRuleValues(family);
  const log: unknown[] = [];
  const text = new Utf8Chunks("a hostport rule");
  let finished = false;
  const b = new RuleBuilder(values, log, text, () => {
    finished = true;
  });
  write(b.reset(CHAIN));
  if (!finished) throw new Error("hostport rule built without a target or end()");
  // The one line written, without its newline.
  const line = text.text().slice(0, -1);
  const prefix = `-A ${CHAIN} `;
  const written = line.startsWith(prefix) ? line.slice(prefix.length) : "";
  let built: NatRule | undefined;
  const typed = new TypedRuleBuilder(values, (r) => {
    built = { ...r, written };
  });
  replayRule(log, 0, log.length, typed.reset(written));
  if (built === undefined) throw new Error("hostport rule replay did not finish");
  return built;
}
