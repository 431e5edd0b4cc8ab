/**
 * `iptables-restore` input from a rule set. Rules keep the text they were written with
 * (`Rule.written`, quotes kept), and a parsed table keeps its lines in their
 * original order (declarations, rules across chains, `-X` deletions), so kube-proxy's restore
 * text round-trips byte for byte; a rule set from build/ carries the same lines, so it prints
 * its generator's text. A rule without `written` is printed canonically.
 */
import { BUILTIN_CHAINS, type Chain, type Rule, type RuleSet, type Table } from "../model.js";
import { formatRuleBody } from "./rule.js";

function counters(c: { readonly counters?: Rule["counters"] }): string {
  return `[${c.counters?.packets ?? 0n}:${c.counters?.bytes ?? 0n}]`;
}

function ruleLine(chain: string, r: Rule, family: RuleSet["family"]): string {
  const body = r.written ?? formatRuleBody(r, family);
  const prefix = r.counters !== undefined && r.written !== undefined ? `${counters(r)} ` : "";
  return body === "" ? `${prefix}-A ${chain}` : `${prefix}-A ${chain} ${body}`;
}

function chainDecl(c: Chain, builtin: boolean): string {
  return `:${c.name} ${builtin ? (c.policy ?? "ACCEPT") : "-"} ${counters(c)}`;
}

function formatTable(t: Table, family: RuleSet["family"]): string {
  const builtins = BUILTIN_CHAINS[t.name] as readonly string[];
  const parsed =
    t.line !== undefined && t.chains.every((c) => c.rules.every((r) => r.line !== undefined));
  const out: string[] = [`*${t.name}`];
  if (parsed) {
    // Lines are distinct: place each at its line, then read them in order (no sort).
    const first = t.line;
    const at: string[] = [];
    const put = (line: number, text: string): void => {
      at[line - first] = text;
    };
    for (const c of t.chains) {
      if (c.line !== undefined) put(c.line, chainDecl(c, builtins.includes(c.name)));
      for (const r of c.rules) put(r.line as number, ruleLine(c.name, r, family));
    }
    for (const d of t.deleted ?? []) {
      if (d.declaredLine !== undefined) put(d.declaredLine, `:${d.name} - [0:0]`);
      put(d.line, `-X ${d.name}`);
    }
    for (const text of at) if (text !== undefined) out.push(text);
  } else {
    for (const c of t.chains) out.push(chainDecl(c, builtins.includes(c.name)));
    for (const c of t.chains) for (const r of c.rules) out.push(ruleLine(c.name, r, family));
    for (const d of t.deleted ?? []) out.push(`-X ${d.name}`);
  }
  out.push("COMMIT");
  return `${out.join("\n")}\n`;
}

export function formatIptablesRestore(ruleSet: RuleSet): string {
  return ruleSet.tables.map((t) => formatTable(t, ruleSet.family)).join("");
}
