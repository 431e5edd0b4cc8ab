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
import { Utf8Chunks } from "./utf8-chunks.js";

const ZERO: Counters = Object.freeze({ packets: 0n, bytes: 0n });

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
  /** The declaration lines (`:NAME - [0:0]`), in order. */
  readonly #declarations: Utf8Chunks;
  /** The rules' restore lines, in the order written (utf8-chunks.ts: no string per line kept). */
  readonly #lines: Utf8Chunks;
  /** Per rule written: its chain (an index in #drafts), where its clauses end in #log and its line in #lines. */
  readonly #ruleChains: number[] = [];
  readonly #ends: number[] = [];
  readonly #lineEnds: number[] = [];
  readonly #drafts: ChainDraft[] = [];
  /** The clauses of every rule (rule-builder.ts); none kept for a text-only table. */
  readonly #log: unknown[] | undefined;
  readonly #rule: RuleBuilder;
  #current: ChainDraft | undefined;
  #built: Table | undefined;

  constructor(
    readonly name: TableName,
    private readonly values: SharedRuleValues,
    clauses = true,
  ) {
    this.#log = clauses ? [] : undefined;
    for (const b of BUILTIN_CHAINS[name]) this.#chain(b, true);
    this.#declarations = new Utf8Chunks(`a chain declared in ${name}`);
    this.#lines = new Utf8Chunks(`a rule in ${name}`);
    this.#rule = new RuleBuilder(values, this.#log, this.#lines, () => this.#add());
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
    const d = this.#declarations;
    d.write(":");
    d.write(name);
    d.write(" - [0:0]");
    d.newline();
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

  #add(): void {
    this.#ruleChains.push((this.#current as ChainDraft).index);
    if (this.#log !== undefined) this.#ends.push(this.#log.length);
    this.#lineEnds.push(this.#lines.length);
  }

  /** Bytes of the finished rules' lines (an unfinished rule's words come after them). */
  get #linesLength(): number {
    const n = this.#lineEnds.length;
    return n === 0 ? 0 : (this.#lineEnds[n - 1] as number);
  }

  /** Lines used: `*TABLE`, declarations, rules, `COMMIT`. */
  get lineCount(): number {
    return this.#declared.length + this.#ruleChains.length + 2;
  }

  /** Every character written so far is ASCII. */
  get ascii(): boolean {
    return this.#declarations.ascii && this.#lines.ascii;
  }

  #checkDeclared(): void {
    for (const c of this.#chains.values())
      if (!c.builtin && c.declared === -1)
        throw new Error(`rules for chain ${c.name}, never declared in ${this.name}`);
  }

  /**
   * Hands the table's iptables-restore text to `write` as UTF-8 bytes, in pieces, from the
   * record (no rule objects): `*TABLE`, declarations, rules, `COMMIT`, each line ending in a
   * newline. The pieces are views of the record: use them before writing more rules.
   */
  writeRestore(write: (bytes: Uint8Array) => void): void {
    this.#checkDeclared();
    write(Buffer.from(`*${this.name}\n`, "utf8"));
    for (const p of this.#declarations.pieces()) write(p);
    let left = this.#linesLength;
    for (const p of this.#lines.pieces()) {
      if (left === 0) break;
      const piece = p.length <= left ? p : p.subarray(0, left);
      write(piece);
      left -= piece.length;
    }
    write(COMMIT);
  }

  /** The table, its first line at `line`: built-in chains, then user chains as declared. */
  build(line: number): Table {
    if (this.#built !== undefined) {
      if (this.#built.line !== line) throw new Error(`table ${this.name} built at two lines`);
      return this.#built;
    }
    const log = this.#log;
    if (log === undefined)
      throw new Error(`table ${this.name} was written as text only: it has no typed rules`);
    this.#checkDeclared();
    const firstRule = line + 1 + this.#declared.length;
    let at = 0;
    const rules = this.#drafts.map((): Rule[] => []);
    let chain = this.#drafts[0] as ChainDraft;
    const typed = new TypedRuleBuilder(this.values, (r) => {
      (r as { line: number }).line = firstRule + at;
      (rules[chain.index] as Rule[]).push(r);
    });
    const lineOf = this.#lineReader();
    const ascii = this.#lines.ascii;
    let from = 0;
    let lineFrom = 0;
    for (const n = this.#ruleChains.length; at < n; at++) {
      chain = this.#drafts[this.#ruleChains[at] as number] as ChainDraft;
      const to = this.#ends[at] as number;
      const lineTo = this.#lineEnds[at] as number;
      // `-A CHAIN WORDS\n`: the words are the rule's `written`.
      const words = lineFrom + 4 + (ascii ? chain.name.length : Buffer.byteLength(chain.name));
      replayRule(log, from, to, typed.reset(lineTo - 1 > words ? lineOf(words, lineTo - 1) : ""));
      from = to;
      lineFrom = lineTo;
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

  /** Reads the rule text between two byte offsets (decoded once; per line only beyond ASCII). */
  #lineReader(): (from: number, to: number) => string {
    const lines = this.#lines;
    if (lines.ascii) {
      const text = lines.text();
      return (from, to) => text.slice(from, to);
    }
    const bytes = Buffer.concat(lines.pieces(), lines.length);
    return (from, to) => bytes.toString("utf8", from, to);
  }
}

const COMMIT = Buffer.from("COMMIT\n", "utf8");

export class RuleSetBuilder {
  readonly #tables: TableBuilder[] = [];
  readonly #values: SharedRuleValues;

  /**
   * @param opts.clauses false: keep only the restore text (`restore`, `writeRestore`), not the
   *   clauses the typed rules are made from (`build` refuses); a caller that only prints saves
   *   their memory and time.
   */
  constructor(
    readonly family: IPFamily,
    private readonly opts: { readonly clauses?: boolean } = {},
  ) {
    this.#values = new SharedRuleValues(family);
  }

  /** The clauses are kept: `build` can make the typed rule set. */
  get typed(): boolean {
    return this.opts.clauses !== false;
  }

  /** The builder of `name`; tables come in the restore text in the order first asked for. */
  table(name: TableName): TableBuilder {
    let t = this.#tables.find((x) => x.name === name);
    if (t === undefined) {
      t = new TableBuilder(name, this.#values, this.typed);
      this.#tables.push(t);
    }
    return t;
  }

  /** kube-proxy's restore text of what was written (no typed rules are made). */
  restore(): string {
    const pieces: Uint8Array[] = [];
    this.writeRestore((p) => pieces.push(p));
    const ascii = this.#tables.every((t) => t.ascii);
    return Buffer.concat(pieces).toString(ascii ? "latin1" : "utf8");
  }

  /**
   * The restore text as UTF-8 bytes, handed to `write` in pieces (the CLI writes them to stdout
   * as they come: the text is never made one string). Use each piece before writing more rules.
   */
  writeRestore(write: (bytes: Uint8Array) => void): void {
    for (const t of this.#tables) t.writeRestore(write);
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
