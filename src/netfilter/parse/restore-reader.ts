/**
 * The table reader: reads iptables-restore text line by line into tables. It keeps what a line
 * needs of the lines before it (the open table, the chains named lately, the rule shapes learnt)
 * and hands each kind of line to its piece: `*table`, `COMMIT` (table-checks.ts), a chain
 * declaration (chain-line.ts), a command (`-A`/`-I`/`-N`/`-X`/`-F`/`-P`, below; a rule's words
 * are read by rule.ts, or by shapes.ts when a rule of the same shape was read before). A line's
 * problem is thrown as a `LineError` and recorded as an issue at that line; the next line is read.
 */
import type { IPFamily } from "../../net/index.js";
import type { Issue } from "../../issue/issue.js";
import { ExtensionError } from "../matches/extension.js";
import type { Counters, Hook, Rule, Table, TableName, Target } from "../model.js";
import { matchExtension } from "../registry.js";
import { ChainBuilder, NO_RULES } from "./chain-builder.js";
import { checkChainName, parseCounters, readChainLine } from "./chain-line.js";
import { lineIssue } from "./errors.js";
import { fail, LineError } from "./line-error.js";
import { RecentChains } from "./recent-chains.js";
import { parseRuleWords, RuleError, type RuleReading } from "./rule.js";
import { plainSpacing, RuleShapes } from "./shapes.js";
import {
  finishTable,
  isReferenced,
  newTable,
  TABLES,
  withRule,
  type TableBuilder,
} from "./table-builder.js";
import { commitIssues } from "./table-checks.js";
import { splitRestoreWords, splitWords, wordOffset, writtenFrom } from "./words.js";

export interface RestoreReaderOptions {
  readonly file: string;
  readonly family: IPFamily;
  /** The `upstream-test` dialect (see iptables.ts). */
  readonly upstreamTest: boolean;
  /** Read rules of a kind already seen by their shape (see shapes.ts). */
  readonly shapes: boolean;
}

export class RestoreReader {
  /** Every problem found so far, in the order found. */
  readonly issues: Issue[] = [];
  readonly #opts: RestoreReaderOptions;
  /** Committed tables; a second section of a table replaces the first. */
  readonly #tables: TableBuilder[] = [];
  /** The table whose section is open (`*table` read, COMMIT not yet). */
  #current: TableBuilder | undefined = undefined;
  #lineNo = 0;
  /** Rule shapes learnt in this parse (not in the upstream test dialect: see #command). */
  readonly #shapes: RuleShapes | undefined;
  /** Chains named lately by -A/-I and jumps; -X and a new table forget them. */
  readonly #recent = new RecentChains<ChainBuilder>();

  constructor(opts: RestoreReaderOptions) {
    this.#opts = opts;
    this.#shapes = opts.upstreamTest || !opts.shapes ? undefined : new RuleShapes(opts.family);
  }

  /** The open table's name, if a section is open. */
  get openTable(): TableName | undefined {
    return this.#current?.name;
  }

  /** The tables committed, in the order first committed. */
  tables(): Table[] {
    return this.#tables.map(finishTable);
  }

  /** Records a problem at line `lineNo` that no piece of the reader found (a cut line). */
  issueAt(lineNo: number, message: string): void {
    this.issues.push(lineIssue(this.#opts.file, lineNo, message));
  }

  /**
   * Reads line `lineNo` (without its newline, cut at a NUL, without a final CR). Blank lines and
   * `#` comments are skipped.
   */
  readLine(line: string, lineNo: number): void {
    this.#lineNo = lineNo;
    const c0 = line.charCodeAt(0);
    if (line.length === 0 || c0 === 35 /* # */) return;
    try {
      const current = this.#current;
      if (c0 === 45 /* - */ && current !== undefined) this.#command(current, line);
      else if (c0 === 42 /* * */) this.#openTable(line);
      else if (line.trim() === "COMMIT") this.#commit();
      else if (line.trim() === "") return;
      else if (current === undefined)
        fail(`"${line.trim().split(/\s+/)[0] ?? ""}" outside of a table: expected "*TABLE" first`);
      else if (c0 === 58 /* : */) readChainLine(current, line, lineNo, this.#opts.upstreamTest);
      else this.#command(current, line);
    } catch (e) {
      if (e instanceof LineError) this.issueAt(lineNo, e.message);
      else throw e;
    }
  }

  #openTable(line: string): void {
    const current = this.#current;
    if (current !== undefined)
      fail(`"${line}": table "${current.name}" was not committed (COMMIT expected)`);
    const name = line.slice(1).trim();
    if (!(TABLES as readonly string[]).includes(name)) fail(`table "${name}" does not exist`);
    this.#current = newTable(name as TableName, this.#lineNo);
    this.#recent.clear();
  }

  #commit(): void {
    const t = this.#current;
    if (t === undefined) fail(`COMMIT outside of a table`);
    this.issues.push(...commitIssues(t, { file: this.#opts.file, line: this.#lineNo }));
    const idx = this.#tables.findIndex((x) => x.name === t.name);
    if (idx === -1) this.#tables.push(t);
    else this.#tables[idx] = t;
    this.#current = undefined;
  }

  #chainOf(t: TableBuilder, name: string | undefined, cmd: string): ChainBuilder {
    if (name === undefined) fail(`"${cmd}" requires a chain name`);
    const c = t.chains.get(name);
    if (c === undefined) fail(`chain "${name}" does not exist`);
    return c;
  }

  /** The target of `-j name` (`-g name`), noting in the table a jump it cannot check yet. */
  readonly #resolveJump = (name: string, goto: boolean): Target => {
    const t = this.#current as TableBuilder;
    let c = this.#recent.get(name);
    if (c === undefined) {
      c = t.chains.get(name);
      if (c !== undefined) this.#recent.remember(name, c);
    }
    if (c === undefined || c.builtin) {
      t.unresolved = true;
      return { kind: "jump", chain: name, goto };
    }
    return c.jumpTarget(goto);
  };

  /** Appends or inserts `rule` to `chain`, refusing what the chain's hook does not allow. */
  #place(chain: ChainBuilder, rule: Rule, index: number): void {
    if (chain.builtin) {
      if (
        rule.inInterface !== undefined &&
        (chain.name === "OUTPUT" || chain.name === "POSTROUTING")
      )
        fail(`can't use -i with ${chain.name}`);
      if (
        rule.outInterface !== undefined &&
        (chain.name === "PREROUTING" || chain.name === "INPUT")
      )
        fail(`can't use -o with ${chain.name}`);
      for (const m of rule.matches) {
        const allowed = matchExtension(m.module)?.allowedHooks?.(m);
        if (allowed !== undefined && !allowed.includes(chain.name as Hook))
          fail(`match "${m.module}" with these options is not valid in the ${chain.name} chain`);
      }
    }
    if (index === chain.rules.length) chain.rules = withRule(chain.rules, rule);
    else chain.rules.splice(index, 0, rule);
  }

  /** The chain `-A`/`-I` names (remembered among the recent ones). */
  #chainToFill(t: TableBuilder, name: string | undefined, cmd: string): ChainBuilder {
    let builder = name === undefined ? undefined : this.#recent.get(name);
    if (builder === undefined) {
      builder = this.#chainOf(t, name, cmd);
      this.#recent.remember(name as string, builder);
    }
    return builder;
  }

  /**
   * `-A CHAIN ...` read by a known rule shape (see shapes.ts): true if done, false if the line
   * is for the general path.
   */
  #appendByShape(t: TableBuilder, line: string): boolean {
    const end = line.indexOf(" ", 3);
    if (end <= 3) return false;
    const name = line.slice(3, end);
    if (name.indexOf('"') !== -1) return false;
    const builder = this.#chainToFill(t, name, "-A");
    const shapes = this.#shapes as RuleShapes;
    const rule = shapes.read(line, this.#lineNo, end + 1, t.name, this.#resolveJump);
    if (rule === undefined) return false;
    this.#place(builder, rule, builder.rules.length);
    return true;
  }

  #command(t: TableBuilder, line: string): void {
    // Shapes read lines with plain spacing only; lines from the upstream test dialect may skip
    // words, and no shape vouches for those.
    const shaped = this.#shapes !== undefined && line.startsWith("-A ") && plainSpacing(line);
    if (shaped && this.#appendByShape(t, line)) return;
    const words = splitWords(line);
    let k = 0;
    let counters: Counters | undefined;
    if (words[0] !== undefined && words[0].startsWith("[")) {
      counters = parseCounters(words[0]);
      if (counters === undefined) fail(`bad counters "${words[0]}"`);
      k = 1;
    }
    const cmd = words[k];
    const chainName = words[k + 1];
    switch (cmd) {
      case "-A":
      case "--append":
      case "-I":
      case "--insert":
        this.#addRule(t, line, words, k, counters, shaped);
        return;
      case "-N":
      case "--new-chain":
        if (chainName === undefined) fail(`"${cmd}" requires a chain name`);
        checkChainName(chainName);
        if (t.chains.has(chainName)) fail(`chain "${chainName}" already exists`);
        t.chains.add(new ChainBuilder(chainName, false, undefined, this.#lineNo));
        return;
      case "-X":
      case "--delete-chain":
        this.#deleteChains(t, chainName, cmd);
        return;
      case "-F":
      case "--flush": {
        const list =
          chainName === undefined ? [...t.chains.values()] : [this.#chainOf(t, chainName, cmd)];
        for (const c of list) c.rules = NO_RULES;
        return;
      }
      case "-P":
      case "--policy": {
        const c = this.#chainOf(t, chainName, cmd);
        const p = words[k + 2];
        if (!c.builtin) fail(`cannot set a policy on user-defined chain "${c.name}"`);
        if (p !== "ACCEPT" && p !== "DROP")
          fail(`bad policy "${p ?? ""}": expected ACCEPT or DROP`);
        c.policy = p;
        return;
      }
      case "-t":
      case "--table":
        fail(`the -t option cannot be used in iptables-restore input`);
        break;
      default:
        fail(cmd === undefined ? `missing command` : `unknown or unsupported command "${cmd}"`);
    }
  }

  /** `-A CHAIN rule...` or `-I CHAIN [N] rule...`, the command at word `k`. */
  #addRule(
    t: TableBuilder,
    line: string,
    words: readonly string[],
    k: number,
    counters: Counters | undefined,
    shaped: boolean,
  ): void {
    const cmd = words[k] as string;
    const chain = this.#chainToFill(t, words[k + 1], cmd);
    let start = k + 2;
    let index = cmd === "-A" || cmd === "--append" ? chain.rules.length : 0;
    if (
      (cmd === "-I" || cmd === "--insert") &&
      words[start] !== undefined &&
      /^[0-9]+$/.test(words[start] as string)
    ) {
      const n = Number(words[start]);
      if (n < 1 || n > chain.rules.length + 1)
        fail(`index of insertion ${n} too big for chain "${chain.name}"`);
      index = n - 1;
      start++;
    }
    const reading: RuleReading | undefined = shaped
      ? { roles: [], modules: [], target: undefined, goto: false, unique: false }
      : undefined;
    let rule;
    try {
      rule = parseRuleWords({
        words,
        start,
        family: this.#opts.family,
        table: t.name,
        counters,
        commentTail: this.#opts.upstreamTest,
        jumpTarget: this.#resolveJump,
        written: writtenFrom(line, wordOffset(line, start)),
        line: this.#lineNo,
        reading,
      });
    } catch (e) {
      if (e instanceof RuleError || e instanceof ExtensionError) fail(e.message);
      throw e;
    }
    this.#place(chain, rule, index);
    if (reading !== undefined)
      (this.#shapes as RuleShapes).learn(
        words,
        splitRestoreWords(line).raw,
        start,
        reading,
        rule,
        t.name,
      );
  }

  /** `-X [CHAIN]`: one user chain, or every one; a built-in or referenced chain is refused. */
  #deleteChains(t: TableBuilder, chainName: string | undefined, cmd: string): void {
    const names =
      chainName === undefined
        ? [...t.chains.values()].filter((c) => !c.builtin).map((c) => c.name)
        : [chainName];
    this.#recent.clear();
    for (const name of names) {
      const c = this.#chainOf(t, name, cmd);
      if (c.builtin) fail(`cannot delete built-in chain "${name}"`);
      if (isReferenced(t, name)) fail(`cannot delete chain "${name}": it is referenced by a rule`);
      t.chains.delete(name);
      t.deleted.push(
        c.line === undefined
          ? { name, line: this.#lineNo }
          : { name, line: this.#lineNo, declaredLine: c.line },
      );
    }
  }
}
