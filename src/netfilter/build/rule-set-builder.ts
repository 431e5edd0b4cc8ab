/**
 * A `RuleSet` built in code, laid out as an iptables-restore input: per table `*TABLE`, the
 * chain declarations in the order made, the rules in the order written (across chains, as a
 * generator interleaves them), `COMMIT`. The built rule set numbers its tables, declarations and
 * rules with the lines they have in that text (`line`, as a parsed rule set does), so the restore
 * formatter (format/restore.ts) prints the generator's text byte for byte from the data, and
 * parsing that text gives the same rule set back.
 *
 * Every table holds its built-in chains (policy ACCEPT, undeclared, as the parser adds them).
 */
import type { IPFamily } from "../../net/index.js";
import {
  BUILTIN_CHAINS,
  type Chain,
  type Counters,
  type Rule,
  type RuleSet,
  type Table,
  type TableName,
} from "../model.js";
import { RuleBuilder, SharedRuleValues } from "./rule-builder.js";

const ZERO: Counters = Object.freeze({ packets: 0n, bytes: 0n });

interface ChainDraft {
  readonly name: string;
  readonly builtin: boolean;
  readonly rules: Rule[];
  /** Index among the declarations; -1 while undeclared (a built-in chain stays so). */
  declared: number;
}

export class TableBuilder {
  readonly #chains = new Map<string, ChainDraft>();
  /** Declared chains in declaration order. */
  readonly #declared: ChainDraft[] = [];
  /** Rules written so far (a rule's `line` holds its index among them until `build`). */
  #written = 0;
  readonly #rule: RuleBuilder;

  constructor(
    readonly name: TableName,
    values: SharedRuleValues,
  ) {
    for (const b of BUILTIN_CHAINS[name])
      this.#chains.set(b, { name: b, builtin: true, rules: [], declared: -1 });
    this.#rule = new RuleBuilder(values, (r) => this.#add(r));
  }

  #current: ChainDraft | undefined;

  /**
   * `:NAME - [0:0]`: declares a user chain, once. A restore input declares every chain before
   * the first rule, so a rule may be appended before its chain's declaration is made.
   */
  declare(name: string): void {
    let c = this.#chains.get(name);
    if (c === undefined)
      this.#chains.set(name, (c = { name, builtin: false, rules: [], declared: -1 }));
    if (c.builtin || c.declared !== -1)
      throw new Error(`chain ${name} declared twice (or built in) in ${this.name}`);
    c.declared = this.#declared.length;
    this.#declared.push(c);
  }

  has(name: string): boolean {
    return this.#chains.has(name);
  }

  /** `-A CHAIN …`: the builder of the rule appended to `chain` (built in, or declared by `build`). */
  append(chain: string): RuleBuilder {
    let c = this.#chains.get(chain);
    if (c === undefined)
      this.#chains.set(chain, (c = { name: chain, builtin: false, rules: [], declared: -1 }));
    this.#current = c;
    return this.#rule.reset();
  }

  #add(rule: Rule): void {
    (rule as { line: number }).line = this.#written++;
    (this.#current as ChainDraft).rules.push(rule);
  }

  /** Lines used: `*TABLE`, declarations, rules, `COMMIT`. */
  get lineCount(): number {
    return this.#declared.length + this.#written + 2;
  }

  /** The table, its first line at `line`: built-in chains, then user chains as declared. */
  build(line: number): Table {
    const firstRule = line + 1 + this.#declared.length;
    for (const c of this.#chains.values())
      for (const r of c.rules) (r as { line: number }).line += firstRule;
    const chains: Chain[] = [];
    for (const c of this.#chains.values()) {
      if (c.builtin) chains.push({ name: c.name, rules: c.rules, policy: "ACCEPT" });
      else if (c.declared === -1)
        throw new Error(`rules for chain ${c.name}, never declared in ${this.name}`);
    }
    for (const c of this.#declared)
      chains.push({ name: c.name, counters: ZERO, rules: c.rules, line: line + 1 + c.declared });
    return { name: this.name, chains, line };
  }
}

export class RuleSetBuilder {
  readonly #tables: TableBuilder[] = [];
  readonly #values: SharedRuleValues;

  constructor(readonly family: IPFamily) {
    this.#values = new SharedRuleValues(family);
  }

  /** The builder of `name`; tables come in the restore text in the order first asked for. */
  table(name: TableName): TableBuilder {
    let t = this.#tables.find((x) => x.name === name);
    if (t === undefined) {
      t = new TableBuilder(name, this.#values);
      this.#tables.push(t);
    }
    return t;
  }

  /** The rule set; build once. */
  build(): RuleSet {
    let line = 1;
    const tables: Table[] = [];
    for (const t of this.#tables) {
      tables.push(t.build(line));
      line += t.lineCount;
    }
    return { family: this.family, tables };
  }
}
