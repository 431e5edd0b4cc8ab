/**
 * One hostport rule built as data with the netfilter rule builder: the typed rule and its
 * restore text (`written`) come from the same clauses, so nothing is parsed back.
 */
import type { IPFamily } from "../net/index.js";
import { RuleBuilder, SharedRuleValues } from "../netfilter/build/rule-builder.js";
import type { NatRule } from "./nat-table.js";

/** Builds one rule: `write` calls the clauses in the order the component writes its words. */
export function buildRule(family: IPFamily, write: (b: RuleBuilder) => void): NatRule {
  let built: NatRule | undefined;
  const b = new RuleBuilder(new SharedRuleValues(family), (r) => {
    built = { ...r, written: r.written ?? "" };
  });
  write(b.reset());
  if (built === undefined) throw new Error("hostport rule built without a target or end()");
  return built;
}
