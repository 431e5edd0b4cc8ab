/**
 * A `RuleSet` built in code, laid out as an iptables-restore input: per table `*TABLE`, the
 * chain declarations in the order made, the rules in the order written (across chains, as a
 * generator interleaves them), `COMMIT`.
 *
 * A table keeps what its generator wrote compactly (rule-builder.ts: each rule's restore line
 * and its clauses in one flat log): `restore()` prints the generator's text from it byte for
 * byte, and `build()` makes the typed rule set from the same record, numbering its tables,
 * declarations and rules with the lines they have in that text (`line`, as a parsed rule set
 * does). So format/restore.ts prints the same text from the built rule set, and parsing that
 * text gives the same rule set back; a caller that only prints pays for no rule objects.
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
import { replayRule, RuleBuilder } from "./rule-builder.js";
import { SharedRuleValues, TypedRuleBuilder } from "./typed-rule-builder.js";

const ZERO: Counters = Object.freeze({ packets: 0n, bytes: 0n });

/** Rules per batch of restore lines (~40 KB; 2048 measured no faster). */
const BATCH = 512;

interface ChainDraft {
  readonly name: string;
  /** Index in the table's chains, in the order first named. */
  readonly index: number;
  readonly builtin: boolean;
  /** Index among the declarations; -1 while undeclared (a built-in chain stays so). */
  declared: number;
}

export class TableBuilder {
  readonly #chains = new Map<string, ChainDraft>();
  /** Declared chains in declaration order. */
  readonly #declared: ChainDraft[] = [];
  /**
   * The rules' restore lines, in the order written: whole batches joined into one flat string
   * each (no string per rule kept alive), and the lines of the batch being filled.
   */
  readonly #batches: string[] = [];
  readonly #batch: string[] = [];
  /** Per rule written: its chain (an index in #drafts), and where its clauses end in #log. */
  readonly #ruleChains: number[] = [];
  readonly #ends: number[] = [];
  readonly #drafts: ChainDraft[] = [];
  /** The clauses of every rule (rule-builder.ts). */
  readonly #log: unknown[] = [];
  readonly #rule: RuleBuilder;
  #current: ChainDraft | undefined;
  #built: Table | undefined;

  constructor(
    readonly name: TableName,
    private readonly values: SharedRuleValues,
  ) {
    for (const b of BUILTIN_CHAINS[name]) this.#chain(b, true);
    this.#rule = new RuleBuilder(values, this.#log, (line) => this.#add(line));
  }

  /**
   * `:NAME - [0:0]`: declares a user chain, once. A restore input declares every chain before
   * the first rule, so a rule may be appended before its chain's declaration is made.
   */
  declare(name: string): void {
    const c = this.#chains.get(name) ?? this.#chain(name, false);
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
    this.#current = this.#chains.get(chain) ?? this.#chain(chain, false);
    return this.#rule.reset(chain);
  }

  #chain(name: string, builtin: boolean): ChainDraft {
    const c = { name, index: this.#drafts.length, builtin, declared: -1 };
    this.#chains.set(name, c);
    this.#drafts.push(c);
    return c;
  }

  #add(line: string): void {
    // One line per rule (iptables-restore reads lines; the batches are split at newlines).
    if (line.includes("\n")) throw new Error(`a rule in ${this.name} holds a newline: ${line}`);
    const batch = this.#batch;
    batch.push(line);
    if (batch.length === BATCH) {
      this.#batches.push(batch.join("\n"));
      batch.length = 0;
    }
    this.#ruleChains.push((this.#current as ChainDraft).index);
    this.#ends.push(this.#log.length);
  }

  /** The restore lines of the rules, in order, as batches (each lines joined by newlines). */
  #ruleBatches(): string[] {
    const b = this.#batch;
    return b.length === 0 ? this.#batches : [...this.#batches, b.join("\n")];
  }

  /** Lines used: `*TABLE`, declarations, rules, `COMMIT`. */
  get lineCount(): number {
    return this.#declared.length + this.#ruleChains.length + 2;
  }

  #checkDeclared(): void {
    for (const c of this.#chains.values())
      if (!c.builtin && c.declared === -1)
        throw new Error(`rules for chain ${c.name}, never declared in ${this.name}`);
  }

  /** Appends the table's iptables-restore lines to `out`, from the record (no rule objects). */
  restoreLines(out: string[]): void {
    this.#checkDeclared();
    out.push(`*${this.name}`);
    for (const c of this.#declared) out.push(`:${c.name} - [0:0]`);
    for (const b of this.#ruleBatches()) out.push(b);
    out.push("COMMIT");
  }

  /** The table, its first line at `line`: built-in chains, then user chains as declared. */
  build(line: number): Table {
    if (this.#built !== undefined) {
      if (this.#built.line !== line) throw new Error(`table ${this.name} built at two lines`);
      return this.#built;
    }
    this.#checkDeclared();
    const firstRule = line + 1 + this.#declared.length;
    let at = 0;
    const rules = this.#drafts.map((): Rule[] => []);
    let chain = this.#drafts[0] as ChainDraft;
    const typed = new TypedRuleBuilder(this.values, (r) => {
      (r as { line: number }).line = firstRule + at;
      (rules[chain.index] as Rule[]).push(r);
    });
    const log = this.#log;
    let from = 0;
    for (const batch of this.#ruleBatches()) {
      for (const text of batch.split("\n")) {
        chain = this.#drafts[this.#ruleChains[at] as number] as ChainDraft;
        // `-A CHAIN WORDS`: the words are the rule's `written`.
        const prefix = 4 + chain.name.length;
        const to = this.#ends[at] as number;
        replayRule(log, from, to, typed.reset(text.length > prefix ? text.slice(prefix) : ""));
        from = to;
        at++;
      }
    }
    const chains: Chain[] = [];
    for (const c of this.#chains.values())
      if (c.builtin)
        chains.push({ name: c.name, rules: rules[c.index] as Rule[], policy: "ACCEPT" });
    for (const c of this.#declared)
      chains.push({
        name: c.name,
        counters: ZERO,
        rules: rules[c.index] as Rule[],
        line: line + 1 + c.declared,
      });
    this.#built = { name: this.name, chains, line };
    return this.#built;
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

  /** kube-proxy's restore text of what was written (no typed rules are made). */
  restore(): string {
    const lines: string[] = [];
    for (const t of this.#tables) t.restoreLines(lines);
    // One join: the text is copied once (the trailing "" ends it with a newline).
    lines.push("");
    return lines.join("\n");
  }

  #built: RuleSet | undefined;

  /** The rule set (made once, at the first call; write no rules after it). */
  build(): RuleSet {
    if (this.#built !== undefined) return this.#built;
    let line = 1;
    const tables: Table[] = [];
    for (const t of this.#tables) {
      tables.push(t.build(line));
      line += t.lineCount;
    }
    this.#built = { family: this.family, tables };
    return this.#built;
  }
}
