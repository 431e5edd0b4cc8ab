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
  if (!parsed) {
    const out: string[] = [`*${t.name}`];
    for (const c of t.chains) out.push(chainDecl(c, builtins.includes(c.name)));
    for (const c of t.chains) for (const r of c.rules) out.push(ruleLine(c.name, r, family));
    for (const d of t.deleted ?? []) out.push(`-X ${d.name}`);
    out.push("COMMIT");
    return `${out.join("\n")}\n`;
  }
  // Lines are distinct: place each at its line, then read them in order (no sort). The array
  // is allocated whole and filled first, so that V8 keeps it a flat (packed) array.
  const first = t.line;
  let last = first;
  for (const c of t.chains) {
    if (c.line !== undefined && c.line > last) last = c.line;
    // A parsed `-I` puts a rule before earlier lines: every rule is looked at.
    for (const r of c.rules) if ((r.line as number) > last) last = r.line as number;
  }
  for (const d of t.deleted ?? []) if (d.line > last) last = d.line;
  const at = new Array<string>(last - first + 2).fill("");
  let filled = 2;
  at[0] = `*${t.name}`;
  at[last - first + 1] = "COMMIT";
  for (const c of t.chains) {
    if (c.line !== undefined) {
      at[c.line - first] = chainDecl(c, builtins.includes(c.name));
      filled++;
    }
    const name = c.name;
    for (const r of c.rules) {
      at[(r.line as number) - first] =
        r.written !== undefined && r.counters === undefined
          ? r.written === ""
            ? `-A ${name}`
            : `-A ${name} ${r.written}`
          : ruleLine(name, r, family);
    }
    filled += c.rules.length;
  }
  for (const d of t.deleted ?? []) {
    if (d.declaredLine !== undefined) {
      at[d.declaredLine - first] = `:${d.name} - [0:0]`;
      filled++;
    }
    at[d.line - first] = `-X ${d.name}`;
    filled++;
  }
  // Every line filled (a built rule set): the array is the text; else skip the blank ones
  // (comments and blank lines of a parsed input).
  const lines = filled === at.length ? at : at.filter((l) => l !== "");
  return `${lines.join("\n")}\n`;
}

export function formatIptablesRestore(ruleSet: RuleSet): string {
  return ruleSet.tables.map((t) => formatTable(t, ruleSet.family)).join("");
}
