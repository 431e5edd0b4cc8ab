/**
 * A table while its `*table ... COMMIT` section is read: its chains (builders that rules are
 * added to in place), the chains `-X` deleted, and whether a jump still has to be checked at
 * COMMIT. `finishTable` turns it into the model's `Table`.
 */
import { BUILTIN_CHAINS, type Chain, type Rule, type Table, type TableName } from "../model.js";
import { ChainBuilder, ChainJump, ChainTable, NO_RULES } from "./chain-builder.js";

export interface TableBuilder {
  readonly name: TableName;
  chains: ChainTable;
  readonly line: number;
  deleted: { name: string; line: number; declaredLine?: number }[];
  /**
   * Whether some rule jumps to a chain that was missing or built-in when the rule was read.
   * Otherwise every jump already names an existing user chain, which stays: `-X` refuses a chain
   * that other chains' rules jump to, and declaring a chain again keeps its builder.
   */
  unresolved: boolean;
}

/** The tables iptables-restore knows, in `iptables-save`'s order. */
export const TABLES: readonly TableName[] = ["raw", "mangle", "nat", "filter", "security"];

/** A table as `*name` opens it: its built-in chains, empty, with policy ACCEPT. */
export function newTable(name: TableName, line: number): TableBuilder {
  const chains = new ChainTable();
  for (const hook of BUILTIN_CHAINS[name]) chains.add(new ChainBuilder(hook, true));
  return { name, chains, line, deleted: [], unresolved: false };
}

/** The chain a rule's `-j`/`-g` names, if the table has it. */
export function jumpedTo(t: TableBuilder, r: Rule): ChainBuilder | undefined {
  const target = r.target;
  if (target instanceof ChainJump) return target.to;
  return target?.kind === "jump" ? t.chains.get(target.chain) : undefined;
}

/** The user chain a rule's `-j`/`-g` names (checked once the table is complete). */
export function jumpOf(r: Rule): string | undefined {
  return r.target?.kind === "jump" ? r.target.chain : undefined;
}

/** Whether a rule of another chain jumps to `name` (`-X` refuses such a chain). */
export function isReferenced(t: TableBuilder, name: string): boolean {
  for (const c of t.chains.values())
    if (c.name !== name && c.rules.some((r) => jumpOf(r) === name)) return true;
  return false;
}

/** `rules` with `rule` appended. */
export function withRule(rules: Rule[], rule: Rule): Rule[] {
  // push() leaves room for 16 more rules in every chain, and most chains of a large dump
  // (kube-proxy's endpoint chains) hold two or three: make small ones exactly.
  switch (rules.length) {
    case 0:
      return [rule];
    case 1:
      return [rules[0] as Rule, rule];
    case 2:
      return [rules[0] as Rule, rules[1] as Rule, rule];
    default:
      if (rules.length < 16) return rules.concat([rule]);
      rules.push(rule);
      return rules;
  }
}

/** The committed table as the model holds it. */
export function finishTable(t: TableBuilder): Table {
  const chains: Chain[] = [];
  for (const c of t.chains.values()) {
    if (c.rules === NO_RULES) c.rules = [];
    if (!c.builtin) {
      chains.push(c);
      continue;
    }
    const chain: { -readonly [K in keyof Chain]: Chain[K] } = { name: c.name, rules: c.rules };
    if (c.policy !== undefined) chain.policy = c.policy;
    if (c.counters !== undefined) chain.counters = c.counters;
    if (c.line !== undefined) chain.line = c.line;
    chains.push(chain);
  }
  const table: { -readonly [K in keyof Table]: Table[K] } = { name: t.name, chains, line: t.line };
  if (t.deleted.length > 0) table.deleted = t.deleted;
  return table;
}
