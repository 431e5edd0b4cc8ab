/**
 * A `RuleSet` built in code, laid out as an iptables-restore input: per table `*TABLE`, the
 * chain declarations in the order made, the rules in the order written (across chains, as a
 * generator interleaves them), `COMMIT`.
 *
 * A table keeps what its generator wrote compactly (rule-builder.ts: each rule's restore line
 * as UTF-8 bytes and its clauses in one flat log): `restore()` / `writeRestore()` print the
 * generator's text from it byte for byte, and `build()` makes the typed rule set from the same
 * record (a text-only builder, `clauses: false`, keeps no log and cannot), numbering its tables,
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
import { ChainNameSet } from "./chain-name-set.js";
import { replayRule, RuleBuilder } from "./rule-builder.js";
import { SharedRuleValues, TypedRuleBuilder } from "./typed-rule-builder.js";
import { Utf8Chunks, type SpilledText } from "./utf8-chunks.js";

export type { SpilledText } from "./utf8-chunks.js";

/**
 * A text-only table's rule lines are spilled (`TableBuilder`'s `spill`) once this many bytes are
 * held, whenever less than SPILL_ROOM is left in the current chunk: finished lines only, in
 * pieces of about a chunk, the chunk then reused.
 */
const SPILL_HELD = 1 << 20;
/** More than one rule line needs (a longer line only grows the chunk). */
const SPILL_ROOM = 1 << 16;

const ZERO: Counters = Object.freeze({ packets: 0n, bytes: 0n });

export class TableBuilder {
  /** A handful: compared one by one, cheaper than hashing a new name for a set. */
  readonly #builtins: readonly string[];
  /** Chains appended to and not (yet) declared. */
  readonly #pending = new Set<string>();
  /** Declared chains (chain-name-set.ts: where each is written in #declarations). */
  readonly #declared: ChainNameSet;
  /** The chain declared last: its rules usually follow (no set look-up for them). */
  #lastDeclared: string | undefined;
  /** The declaration lines (`:NAME - [0:0]`), in order. */
  readonly #declarations: Utf8Chunks;
  /**
   * The rules' restore lines (`-A CHAIN WORDS`), in the order written (utf8-chunks.ts: no
   * string per line kept); a rule's chain and words are read back from its line when built.
   */
  readonly #lines: Utf8Chunks;
  /** Bytes of the finished rules' lines (an unfinished rule's words come after them). */
  #linesLength = 0;
  #rules = 0;
  /** Where each rule's clauses end in #log. */
  readonly #ends: number[] = [];
  /** The clauses of every rule (rule-builder.ts); none kept for a text-only table. */
  readonly #log: unknown[] | undefined;
  readonly #rule: RuleBuilder;
  #built: Table | undefined;
  /** Where finished rule lines went once the table held SPILL_HELD bytes (text only). */
  #spill: SpilledText | undefined;

  /**
   * @param expectedChains how many chains the table will likely declare (a hint: its set of
   *   names is made that large at once).
   * @param spill where a text-only table's rule lines go once they are large (made when first
   *   needed); ignored when the clauses are kept (`build` reads the lines back).
   */
  constructor(
    readonly name: TableName,
    private readonly values: SharedRuleValues,
    clauses = true,
    expectedChains = 0,
    private readonly spill?: () => SpilledText,
  ) {
    this.#log = clauses ? [] : undefined;
    this.#builtins = BUILTIN_CHAINS[name];
    this.#declarations = new Utf8Chunks(`a chain declared in ${name}`);
    this.#declared = new ChainNameSet(this.#declarations, expectedChains);
    this.#lines = new Utf8Chunks(`a rule in ${name}`);
    this.#rule = new RuleBuilder(values, this.#log, this.#lines, () => this.#add());
  }

  /**
   * `:NAME - [0:0]`: declares a user chain, once. A restore input declares every chain before
   * the first rule, so a rule may be appended before its chain's declaration is made.
   */
  declare(name: string): void {
    // A chain name is one restore word (iptables-restore splits a line at spaces).
    if (name === "" || name.includes(" ")) throw new Error(`invalid chain name "${name}"`);
    // A name seen before may only be one appended to and not declared yet.
    const h = ChainNameSet.hashOf(name);
    if (!this.#unpend(name) && (this.#builtins.includes(name) || this.#declared.hasHashed(name, h)))
      throw new Error(`chain ${name} declared twice (or built in) in ${this.name}`);
    this.#lastDeclared = name;
    const d = this.#declarations;
    d.write(":");
    const at = d.length;
    d.write(name);
    d.write(" - [0:0]");
    d.newline();
    this.#declared.addHashed(h, at);
  }

  /** `name` was appended to and not declared; it is declared now. */
  #unpend(name: string): boolean {
    // Usually none is pending: no set look-up (and no string hash) for a new name then.
    return this.#pending.size !== 0 && this.#pending.delete(name);
  }

  /** `name` is built in, declared, or appended to. */
  has(name: string): boolean {
    return (
      this.#builtins.includes(name) ||
      (this.#pending.size !== 0 && this.#pending.has(name)) ||
      this.#declared.has(name)
    );
  }

  /** `-A CHAIN …`: the builder of the rule appended to `chain` (built in, or declared by `build`). */
  append(chain: string): RuleBuilder {
    if (chain !== this.#lastDeclared && !this.has(chain)) {
      // A chain name is one restore word (iptables-restore splits a line at spaces).
      if (chain === "" || chain.includes(" ")) throw new Error(`invalid chain name "${chain}"`);
      this.#pending.add(chain);
    }
    return this.#rule.reset(chain);
  }

  #add(): void {
    this.#rules++;
    const lines = this.#lines;
    this.#linesLength = lines.length;
    if (this.#log !== undefined) this.#ends.push(this.#log.length);
    else if (
      this.spill !== undefined &&
      lines.room < SPILL_ROOM &&
      (lines.spilled > 0 || lines.held >= SPILL_HELD)
    ) {
      // Every line held is finished: the rule just ended.
      this.#spill ??= this.spill();
      lines.spillTo(this.#spill);
    }
  }

  /** Lines used: `*TABLE`, declarations, rules, `COMMIT`. */
  get lineCount(): number {
    return this.#declared.size + this.#rules + 2;
  }

  /** The declared chains in declaration order, read back from their lines (`:NAME - [0:0]`). */
  #declaredNames(): string[] {
    const text = this.#declarations.text();
    const names: string[] = [];
    for (let from = 0; from < text.length;) {
      const end = text.indexOf(" - [0:0]\n", from);
      names.push(text.slice(from + 1, end));
      from = end + 9;
    }
    return names;
  }

  /** Some rule lines were spilled (pieces of `writeRestore` may be written over after use). */
  get spilled(): boolean {
    return this.#spill !== undefined;
  }

  /** Every character written so far is ASCII. */
  get ascii(): boolean {
    return this.#declarations.ascii && this.#lines.ascii;
  }

  #checkDeclared(): void {
    for (const name of this.#pending)
      throw new Error(`rules for chain ${name}, never declared in ${this.name}`);
  }

  /**
   * Hands the table's iptables-restore text to `write` as UTF-8 bytes, in pieces, from the
   * record (no rule objects): `*TABLE`, declarations, rules, `COMMIT`, each line ending in a
   * newline. The pieces are views of the record (spilled lines: of a buffer written over after
   * the call): use each before the call returns.
   */
  writeRestore(write: (bytes: Uint8Array) => void): void {
    this.#checkDeclared();
    write(Buffer.from(`*${this.name}\n`, "utf8"));
    for (const p of this.#declarations.pieces()) write(p);
    this.#spill?.replay(write);
    let left = this.#linesLength - this.#lines.spilled;
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
    const declared = this.#declaredNames();
    const rules = new Map<string, Rule[]>();
    const builtins = BUILTIN_CHAINS[this.name];
    for (const name of builtins) rules.set(name, []);
    for (const name of declared) rules.set(name, []);
    const firstRule = line + 1 + declared.length;
    let at = 0;
    let chain: Rule[] = [];
    const typed = new TypedRuleBuilder(this.values, (r) => {
      (r as { line: number }).line = firstRule + at;
      chain.push(r);
    });
    // One rule per line: `-A CHAIN WORDS`, the words being the rule's `written`.
    const text = this.#lines.text(this.#linesLength);
    let from = 0;
    let lineFrom = 0;
    for (; at < this.#rules; at++) {
      const lineTo = text.indexOf("\n", lineFrom);
      const space = text.indexOf(" ", lineFrom + 3);
      const nameEnd = space === -1 || space > lineTo ? lineTo : space;
      chain = rules.get(text.slice(lineFrom + 3, nameEnd)) as Rule[];
      const to = this.#ends[at] as number;
      replayRule(
        log,
        from,
        to,
        typed.reset(nameEnd < lineTo ? text.slice(nameEnd + 1, lineTo) : ""),
      );
      from = to;
      lineFrom = lineTo + 1;
    }
    const chains: Chain[] = [];
    for (const name of builtins)
      chains.push({ name, rules: rules.get(name) as Rule[], policy: "ACCEPT" });
    declared.forEach((name, i) =>
      chains.push({ name, counters: ZERO, rules: rules.get(name) as Rule[], line: line + 1 + i }),
    );
    this.#built = { name: this.name, chains, line };
    return this.#built;
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
   * @param opts.expectedChains the most chains a table is likely to declare: each table's set of
   *   declared names is made that large at once (a table that declares fewer wastes 8 bytes a
   *   name; one that declares more grows as without it).
   * @param opts.spill text only (`clauses` false): where each table's rule lines go once they
   *   pass 1 MiB (made per table when first needed), so that a large text does not stay in
   *   fresh memory until it is printed; `writeRestore` replays them in place.
   */
  constructor(
    readonly family: IPFamily,
    private readonly opts: {
      readonly clauses?: boolean;
      /** How many chains a table will likely declare, at most (a hint). */
      readonly expectedChains?: number;
      /** Text only: where a large table's rule lines go (one store per table, made when needed). */
      readonly spill?: () => SpilledText;
    } = {},
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
      t = new TableBuilder(
        name,
        this.#values,
        this.typed,
        this.opts.expectedChains,
        this.opts.spill,
      );
      this.#tables.push(t);
    }
    return t;
  }

  /** kube-proxy's restore text of what was written (no typed rules are made). */
  restore(): string {
    const pieces: Uint8Array[] = [];
    // A spilled table's pieces are written over after use: those are copied.
    const copy = this.#tables.some((t) => t.spilled);
    this.writeRestore((p) => pieces.push(copy ? Buffer.from(p) : p));
    const ascii = this.#tables.every((t) => t.ascii);
    return Buffer.concat(pieces).toString(ascii ? "latin1" : "utf8");
  }

  /**
   * The restore text as UTF-8 bytes, handed to `write` in pieces (the CLI writes them to stdout
   * as they come: the text is never made one string). Use each piece before the call returns
   * (spilled lines come in a buffer that is written over).
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
