/**
 * `toEqualRules`: two iptables rule sets (iptables-save or iptables-restore text, or parsed
 * RuleSets) compared as the kernel would hold them: both parsed and printed in canonical
 * iptables-save form, counters ignored, chains compared by name (the order chains are declared
 * in does not matter to iptables; the order of rules inside a chain does), built-in chains that
 * are empty with policy ACCEPT equal to absent ones. On failure, a diff per differing chain.
 */
import type { IPFamily } from "../net/address.js";
import { formatRuleSave } from "../netfilter/format/rule.js";
import { BUILTIN_CHAINS, type RuleSet } from "../netfilter/model.js";
import { parseIptables } from "../netfilter/parse/iptables.js";
import { inputFailure, type MatcherContextLike, type MatcherResult } from "./context.js";

/** `table/CHAIN` → the chain's canonical lines (its policy line, then its rules). */
export type CanonicalChains = ReadonlyMap<string, readonly string[]>;

function isRuleSet(x: unknown): x is RuleSet {
  return typeof x === "object" && x !== null && "tables" in x && "family" in x;
}

function toRuleSet(x: unknown, which: string, family: IPFamily | undefined): RuleSet {
  if (isRuleSet(x)) return x;
  if (typeof x !== "string")
    throw new Error(`the ${which} value must be iptables-save/restore text or a RuleSet`);
  return parseIptables(x, { file: `<${which}>`, ...(family !== undefined ? { family } : {}) });
}

export function canonicalChains(rs: RuleSet): CanonicalChains {
  const out = new Map<string, string[]>();
  for (const t of rs.tables) {
    const builtins = BUILTIN_CHAINS[t.name] as readonly string[];
    for (const c of t.chains) {
      const builtin = builtins.includes(c.name);
      const policy = builtin ? (c.policy ?? "ACCEPT") : "-";
      if (builtin && policy === "ACCEPT" && c.rules.length === 0) continue;
      out.set(`${t.name}/${c.name}`, [
        `:${c.name} ${policy}`,
        ...c.rules.map((r) => formatRuleSave(c.name, r, rs.family)),
      ]);
    }
  }
  return out;
}

export interface RulesOptions {
  /** Parse both texts as this family (default: guessed from each text's addresses). */
  readonly family?: IPFamily;
}

export function toEqualRules(
  this: MatcherContextLike,
  received: unknown,
  expected: string | RuleSet,
  options?: RulesOptions,
): MatcherResult {
  let got: CanonicalChains;
  let want: CanonicalChains;
  try {
    got = canonicalChains(toRuleSet(received, "received", options?.family));
    want = canonicalChains(toRuleSet(expected, "expected", options?.family));
  } catch (err) {
    return inputFailure("toEqualRules", err);
  }
  const names = [...new Set([...want.keys(), ...got.keys()])].sort();
  const differing = names.filter(
    (n) => (want.get(n) ?? []).join("\n") !== (got.get(n) ?? []).join("\n"),
  );
  const pass = differing.length === 0;
  return {
    pass,
    message: () => {
      if (pass)
        return `expected the rule sets to differ, but they are equal (${names.length} chains)`;
      const parts = differing.map((n) => {
        const w = want.get(n);
        const g = got.get(n);
        if (w === undefined) return `${n}: only in the received rules\n${(g ?? []).join("\n")}`;
        if (g === undefined) return `${n}: missing from the received rules\n${w.join("\n")}`;
        const diff = this.utils.diff(w.join("\n"), g.join("\n"), {
          aAnnotation: "Expected",
          bAnnotation: "Received",
        });
        return `${n}:\n${diff ?? `- ${w.join("\n- ")}\n+ ${g.join("\n+ ")}`}`;
      });
      return `expected the rule sets to be equal (canonical iptables-save form, counters ignored); ${differing.length} chain(s) differ:\n\n${parts.join("\n\n")}`;
    },
  };
}
