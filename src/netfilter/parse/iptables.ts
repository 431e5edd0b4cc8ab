/**
 * The iptables-save / iptables-restore text parser.
 *
 * It reads both what `iptables-save` prints and what `iptables-restore` accepts (what
 * kube-proxy writes): `*table`, `:CHAIN POLICY [p:b]`, `[p:b] -A CHAIN ...`, `-I CHAIN [N]`,
 * `-N`, `-X`, `-F`, `-P`, `COMMIT`, `#` comments. The result is the state the kernel would hold
 * after `iptables-restore` of the text into empty tables, with these iptables-nft v1.8.9 rules
 * (checked against the real tool):
 * - a second `*table` section replaces the table; declaring an existing user chain again
 *   flushes it; declaring a built-in chain again only sets its policy;
 * - `-N` of an existing chain, `-A`/`-I`/`-F`/`-X` of a missing one, `-X` of a referenced or
 *   built-in chain, a jump to a chain missing at COMMIT, a path of more than 15 nested jumps
 *   from a built-in chain (so any loop one reaches; see nesting.ts), a line outside
 *   `*table ... COMMIT`, and a missing final COMMIT are errors.
 * Every problem is collected with its line; the parse fails with one `IptablesParseError`.
 *
 * The `upstream-test` dialect reads fixtures written for kube-proxy's fake iptables
 * (`ParseIPTablesDump` in k8s.io/kubernetes pkg/util/iptables/testing), which are not always valid
 * iptables-restore input. It accepts exactly two things the strict parser rejects:
 * - a built-in chain declared with policy `-` (`:INPUT - [0:0]`; the fake declares every chain
 *   that way): the chain keeps its current policy (ACCEPT unless set);
 * - bare words right after a `--comment VALUE` (`--comment kubernetes service portals`): they are
 *   skipped, so the comment is the first word, as in the fake. `Rule.written` keeps every word.
 * Everything else is checked as in the default `iptables-restore` dialect.
 */
import type { IPFamily } from "../../net/index.js";
import {
  BUILTIN_CHAINS,
  type Chain,
  type Counters,
  type Hook,
  type Rule,
  type RuleSet,
  type Table,
  type TableName,
  type Target,
} from "../model.js";
import { ExtensionError } from "../matches/extension.js";
import { matchExtension, targetExtension, UNMODELLED_TARGETS } from "../registry.js";
import { IptablesParseError, type IptablesIssue } from "./errors.js";
import { ChainBuilder, ChainJump, ChainTable, NO_RULES } from "./chain-builder.js";
import { MAX_JUMPS, nestsTooDeep } from "./nesting.js";
import { parseRuleWords, RuleError, type RuleReading } from "./rule.js";
import { plainSpacing, RuleShapes } from "./shapes.js";
import { RecentChains } from "./recent-chains.js";
import { splitRestoreWords, splitWords, wordOffset, writtenFrom } from "./words.js";

export interface ParseIptablesOptions {
  /** Named in error messages. Default `<input>`. */
  readonly file?: string;
  /** Default: IPv6 when the text's addresses say so, else IPv4. */
  readonly family?: IPFamily;
  /** Stop after this many issues. Default 50. */
  readonly maxIssues?: number;
  /**
   * `iptables-restore` (default): what the real tool accepts. `upstream-test`: also what
   * kube-proxy's test fake accepts in its fixtures (see the file comment for the exact list).
   */
  readonly dialect?: IptablesDialect;
  /**
   * Read rules of a kind already seen by their shape (see shapes.ts): the same result, faster
   * on large dumps. Default true; false reads every rule word by word (the reference the
   * shortcut is tested against).
   */
  readonly shapes?: boolean;
}

export type IptablesDialect = "iptables-restore" | "upstream-test";

interface TableBuilder {
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

const TABLES: readonly TableName[] = ["raw", "mangle", "nat", "filter", "security"];
const MAX_CHAIN_NAME = 28;

class LineError extends Error {}

function fail(message: string): never {
  throw new LineError(message);
}

/** Counters are immutable; almost every declaration says `[0:0]`, so those share one value. */
const ZERO_COUNTERS: Counters = Object.freeze({ packets: 0n, bytes: 0n });

function parseCounters(s: string): Counters | undefined {
  if (s === "[0:0]") return ZERO_COUNTERS;
  const m = /^\[([0-9]+):([0-9]+)\]$/.exec(s);
  return m === null
    ? undefined
    : { packets: BigInt(m[1] as string), bytes: BigInt(m[2] as string) };
}

function newTable(name: TableName, line: number): TableBuilder {
  const chains = new ChainTable();
  for (const hook of BUILTIN_CHAINS[name]) chains.add(new ChainBuilder(hook, true));
  return { name, chains, line, deleted: [], unresolved: false };
}

/** Guesses the family from the first addresses in the text (cheap: looks at `-s`/`-d` values). */
export function sniffFamily(text: string): IPFamily {
  const re = / (?:-s|-d|--to-destination|--to-source) \[?([0-9a-fA-F:.]+)/g;
  for (let k = 0; k < 50; k++) {
    const m = re.exec(text);
    if (m === null) break;
    const v = m[1] as string;
    if (v.includes(":") && !/^[0-9.]+:/.test(v)) return "IPv6";
    if (/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/.test(v)) return "IPv4";
  }
  return "IPv4";
}

/** The chain a rule's `-j`/`-g` names, if the table has it. */
function jumpedTo(t: TableBuilder, r: Rule): ChainBuilder | undefined {
  const target = r.target;
  if (target instanceof ChainJump) return target.to;
  return target?.kind === "jump" ? t.chains.get(target.chain) : undefined;
}

/** The user chain a rule's `-j`/`-g` names (checked once the table is complete). */
function jumpOf(r: Rule): string | undefined {
  return r.target?.kind === "jump" ? r.target.chain : undefined;
}

function checkChainName(name: string): void {
  if (name.length === 0) fail(`missing chain name`);
  if (name.length > MAX_CHAIN_NAME)
    fail(`invalid chain name "${name}" (${MAX_CHAIN_NAME} chars max)`);
  if (name.startsWith("-") || name.startsWith("!")) fail(`invalid chain name "${name}"`);
}

/** `rules` with `rule` appended. */
function withRule(rules: Rule[], rule: Rule): Rule[] {
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

function freeze(t: TableBuilder): Table {
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

export function parseIptables(text: string, opts: ParseIptablesOptions = {}): RuleSet {
  const file = opts.file ?? "<input>";
  // iptables-restore refuses it too ("line 1 failed"); named here rather than as a bad line.
  if (text.charCodeAt(0) === 0xfeff)
    throw new IptablesParseError([
      {
        file,
        line: 1,
        message:
          "the input starts with a UTF-8 byte order mark (U+FEFF), which iptables-restore refuses: save the file without it",
      },
    ]);
  const family = opts.family ?? sniffFamily(text);
  const maxIssues = opts.maxIssues ?? 50;
  const upstreamTest = opts.dialect === "upstream-test";
  const issues: IptablesIssue[] = [];
  const tables: TableBuilder[] = [];
  let current: TableBuilder | undefined;
  let lineNo = 0;
  let pos = 0;
  const len = text.length;

  const checkHooks = (t: TableBuilder): void => {
    // Which built-in hooks reach each chain (through -j and -g), as the kernel validates: bit k
    // of a builder's `reach` is hook k of the table's built-in chains.
    const hooksOf = BUILTIN_CHAINS[t.name];
    // Recursion is shallow: checkNesting has refused paths of more than MAX_JUMPS jumps.
    const visit = (b: ChainBuilder, bit: number): void => {
      if ((b.reach & bit) !== 0) return;
      b.reach |= bit;
      for (const r of b.rules) {
        const next = jumpedTo(t, r);
        if (next !== undefined) visit(next, bit);
      }
    };
    for (const b of t.chains.values()) b.reach = 0;
    hooksOf.forEach((hook, k) => visit(t.chains.get(hook) as ChainBuilder, 1 << k));
    for (const b of t.chains.values()) {
      const bits = b.reach;
      if (bits === 0) continue;
      for (const r of b.rules) {
        const kind = r.target?.kind;
        if (
          kind === undefined ||
          kind === "jump" ||
          kind === "ACCEPT" ||
          kind === "DROP" ||
          kind === "RETURN"
        )
          continue;
        const ext = targetExtension(kind);
        const allowed = ext?.hooks;
        if (ext === undefined || allowed === undefined) continue;
        const bad = hooksOf.find((h, k) => (bits & (1 << k)) !== 0 && !allowed.includes(h));
        if (bad !== undefined)
          issues.push({
            file,
            line: r.line ?? lineNo,
            message: `target "${ext.name}" is not valid in the ${bad} hook (only ${allowed.join(", ")})`,
          });
      }
    }
  };

  /** The chains `chain`'s rules up to line `upTo` jump to (built-in ones aside: an error). */
  const jumpsUpTo =
    (t: TableBuilder, upTo: number) =>
    (chain: ChainBuilder, visit: (to: ChainBuilder) => void): void => {
      for (const r of chain.rules) {
        if ((r.line ?? 0) > upTo) continue;
        const to = jumpedTo(t, r);
        if (to !== undefined && !to.builtin) visit(to);
      }
    };

  /** False, with an issue, if a path from a built-in chain nests too deep (see nesting.ts). */
  const checkNesting = (t: TableBuilder): boolean => {
    const bases = [...t.chains.values()].filter((b) => b.builtin);
    if (!nestsTooDeep(bases, jumpsUpTo(t, Infinity))) return true;
    // iptables-restore names the first rule, in line order, after which some path is too deep.
    const jumps: { line: number; chain: string; to: string }[] = [];
    for (const b of t.chains.values())
      for (const r of b.rules) {
        const to = jumpOf(r);
        if (to !== undefined) jumps.push({ line: r.line ?? 0, chain: b.name, to });
      }
    jumps.sort((a, b) => a.line - b.line);
    let lo = 0;
    let hi = jumps.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (nestsTooDeep(bases, jumpsUpTo(t, (jumps[mid] as (typeof jumps)[0]).line))) hi = mid;
      else lo = mid + 1;
    }
    const j = jumps[lo] as (typeof jumps)[0];
    issues.push({
      file,
      line: j.line,
      message: `rule in chain "${j.chain}": the jump to "${j.to}" nests chains deeper than the kernel allows (${MAX_JUMPS} jumps from a built-in chain) or closes a loop (iptables-restore: "Too many links")`,
    });
    return false;
  };

  const commit = (t: TableBuilder): void => {
    if (checkNesting(t)) checkHooks(t);
    // Otherwise every jump was checked as it was read (see TableBuilder.unresolved).
    if (t.unresolved)
      for (const c of t.chains.values()) {
        for (const r of c.rules) {
          const to = jumpOf(r);
          if (to === undefined) continue;
          const target = t.chains.get(to);
          const line = r.line ?? lineNo;
          if (target === undefined)
            issues.push({
              file,
              line,
              message: UNMODELLED_TARGETS.has(to)
                ? `target "${to}" is not modelled by kube-netsim`
                : `chain "${to}" does not exist (jump from chain "${c.name}")`,
            });
          else if (target.builtin)
            issues.push({ file, line, message: `cannot jump to built-in chain "${to}"` });
        }
      }
    const idx = tables.findIndex((x) => x.name === t.name);
    if (idx === -1) tables.push(t);
    else tables[idx] = t;
  };

  const chainOf = (t: TableBuilder, name: string | undefined, cmd: string): ChainBuilder => {
    if (name === undefined) fail(`"${cmd}" requires a chain name`);
    const c = t.chains.get(name);
    if (c === undefined) fail(`chain "${name}" does not exist`);
    return c;
  };

  // Rule shapes learnt in this parse (not in the upstream test dialect: see handleCommand).
  const shapes = upstreamTest || opts.shapes === false ? undefined : new RuleShapes(family);

  // Chains named lately by -A/-I and jumps; -X and a new table forget them.
  const recent = new RecentChains<ChainBuilder>();

  /** The target of `-j name` (`-g name`), noting in the table a jump it cannot check yet. */
  const resolveJump = (name: string, goto: boolean): Target => {
    const t = current as TableBuilder;
    let c = recent.get(name);
    if (c === undefined) {
      c = t.chains.get(name);
      if (c !== undefined) recent.remember(name, c);
    }
    if (c === undefined || c.builtin) {
      t.unresolved = true;
      return { kind: "jump", chain: name, goto };
    }
    return c.jumpTarget(goto);
  };

  const isReferenced = (t: TableBuilder, name: string): boolean => {
    for (const c of t.chains.values())
      if (c.name !== name && c.rules.some((r) => jumpOf(r) === name)) return true;
    return false;
  };

  /** Appends or inserts `rule` to `chain`. */
  const place = (chain: ChainBuilder, rule: Rule, index: number): void => {
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
  };

  /** The chain `-A`/`-I` names (remembered among the recent ones). */
  const chainToFill = (t: TableBuilder, name: string | undefined, cmd: string): ChainBuilder => {
    let builder = name === undefined ? undefined : recent.get(name);
    if (builder === undefined) {
      builder = chainOf(t, name, cmd);
      recent.remember(name as string, builder);
    }
    return builder;
  };

  /**
   * `-A CHAIN ...` read by a known rule shape (see shapes.ts): true if done, false if the line
   * is for the general path.
   */
  const appendByShape = (t: TableBuilder, line: string): boolean => {
    const end = line.indexOf(" ", 3);
    if (end <= 3) return false;
    const name = line.slice(3, end);
    if (name.indexOf('"') !== -1) return false;
    const builder = chainToFill(t, name, "-A");
    const rule = (shapes as RuleShapes).read(line, lineNo, end + 1, t.name, resolveJump);
    if (rule === undefined) return false;
    place(builder, rule, builder.rules.length);
    return true;
  };

  const handleCommand = (t: TableBuilder, line: string): void => {
    // Shapes read lines with plain spacing only; lines from the upstream test dialect may skip
    // words, and no shape vouches for those.
    const shaped = shapes !== undefined && line.startsWith("-A ") && plainSpacing(line);
    if (shaped && appendByShape(t, line)) return;
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
      case "--insert": {
        const chain = chainToFill(t, chainName, cmd);
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
          rule = parseRuleWords(
            words,
            start,
            family,
            t.name,
            counters,
            upstreamTest,
            resolveJump,
            writtenFrom(line, wordOffset(line, start)),
            lineNo,
            reading,
          );
        } catch (e) {
          if (e instanceof RuleError || e instanceof ExtensionError) fail(e.message);
          throw e;
        }
        place(chain, rule, index);
        if (reading !== undefined)
          (shapes as RuleShapes).learn(
            words,
            splitRestoreWords(line).raw,
            start,
            reading,
            rule,
            t.name,
          );
        return;
      }
      case "-N":
      case "--new-chain": {
        if (chainName === undefined) fail(`"${cmd}" requires a chain name`);
        checkChainName(chainName);
        if (t.chains.has(chainName)) fail(`chain "${chainName}" already exists`);
        t.chains.add(new ChainBuilder(chainName, false, undefined, lineNo));
        return;
      }
      case "-X":
      case "--delete-chain": {
        const names =
          chainName === undefined
            ? [...t.chains.values()].filter((c) => !c.builtin).map((c) => c.name)
            : [chainName];
        recent.clear();
        for (const name of names) {
          const c = chainOf(t, name, cmd);
          if (c.builtin) fail(`cannot delete built-in chain "${name}"`);
          if (isReferenced(t, name))
            fail(`cannot delete chain "${name}": it is referenced by a rule`);
          t.chains.delete(name);
          t.deleted.push(
            c.line === undefined
              ? { name, line: lineNo }
              : { name, line: lineNo, declaredLine: c.line },
          );
        }
        return;
      }
      case "-F":
      case "--flush": {
        const list =
          chainName === undefined ? [...t.chains.values()] : [chainOf(t, chainName, cmd)];
        for (const c of list) {
          c.rules = NO_RULES;
        }
        return;
      }
      case "-P":
      case "--policy": {
        const c = chainOf(t, chainName, cmd);
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
  };

  const handleChainLine = (t: TableBuilder, line: string): void => {
    let name: string | undefined;
    let policy: string | undefined;
    let countersText: string | undefined;
    if (
      line.indexOf("\t") === -1 &&
      line.indexOf("  ") === -1 &&
      line.charCodeAt(1) !== 32 &&
      !line.endsWith(" ")
    ) {
      // Single spaces: the first three words by offsets (no array, no copy of the line).
      const a = line.indexOf(" ");
      name = a === -1 ? line.slice(1) : line.slice(1, a);
      if (a !== -1) {
        const b = line.indexOf(" ", a + 1);
        policy = b === -1 ? line.slice(a + 1) : line.slice(a + 1, b);
        if (b !== -1) {
          const c = line.indexOf(" ", b + 1);
          countersText = c === -1 ? line.slice(b + 1) : line.slice(b + 1, c);
        }
      }
    } else
      [name, policy, countersText] = line
        .slice(1)
        .split(/[ \t]+/)
        .filter((p) => p !== "");
    if (name === undefined) fail(`missing chain name`);
    checkChainName(name);
    if (policy === undefined) fail(`chain "${name}": missing policy`);
    const counters = countersText === undefined ? undefined : parseCounters(countersText);
    if (countersText !== undefined && counters === undefined)
      fail(`chain "${name}": bad counters "${countersText}"`);
    const existing = t.chains.get(name);
    if (BUILTIN_CHAINS[t.name].includes(name as never)) {
      const c = existing as ChainBuilder;
      if (policy === "ACCEPT" || policy === "DROP") c.policy = policy;
      else if (!(upstreamTest && policy === "-"))
        fail(`bad policy "${policy}" for built-in chain "${name}"`);
      if (counters !== undefined) c.counters = counters;
      c.line = lineNo;
      return;
    }
    if (policy !== "-") fail(`cannot set policy "${policy}" on user-defined chain "${name}"`);
    if (existing !== undefined) {
      // iptables-nft flushes a user chain that is declared again.
      existing.rules = NO_RULES;
      return;
    }
    t.chains.add(new ChainBuilder(name, false, counters, lineNo));
  };

  while (pos <= len && issues.length < maxIssues) {
    let end = text.indexOf("\n", pos);
    if (end === -1) end = len;
    if (pos === len) break;
    let line = text.slice(pos, end);
    pos = end + 1;
    lineNo++;
    // iptables-restore reads a line with fgets and then works on it as a C string: a NUL byte
    // ends the line there, and what follows it (up to the newline) is ignored. A line that is
    // left blank that way is a rule line without a command (a blank line is only skipped when it
    // is exactly "\n"); checked against iptables-restore in test/netfilter/parse/nul.test.ts.
    const nul = line.indexOf("\0");
    const cutToBlank = nul !== -1 && line.slice(0, nul).trim() === "";
    if (nul !== -1) line = line.slice(0, nul);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const c0 = line.charCodeAt(0);
    if (cutToBlank) {
      issues.push({
        file,
        line: lineNo,
        message: `a NUL byte at column ${nul + 1} ends the line, leaving no command: iptables-restore refuses it ("no command specified")`,
      });
      continue;
    }
    if (line.length === 0 || c0 === 35 /* # */) continue;
    try {
      if (c0 === 45 /* - */ && current !== undefined) {
        handleCommand(current, line);
        continue;
      }
      if (c0 === 42 /* * */) {
        if (current !== undefined)
          fail(`"${line}": table "${current.name}" was not committed (COMMIT expected)`);
        const name = line.slice(1).trim();
        if (!(TABLES as readonly string[]).includes(name)) fail(`table "${name}" does not exist`);
        current = newTable(name as TableName, lineNo);
        recent.clear();
        continue;
      }
      if (line.trim() === "COMMIT") {
        if (current === undefined) fail(`COMMIT outside of a table`);
        commit(current);
        current = undefined;
        continue;
      }
      if (line.trim() === "") continue;
      if (current === undefined)
        fail(`"${line.trim().split(/\s+/)[0] ?? ""}" outside of a table: expected "*TABLE" first`);
      if (c0 === 58 /* : */) handleChainLine(current, line);
      else handleCommand(current, line);
    } catch (e) {
      if (e instanceof LineError) issues.push({ file, line: lineNo, message: e.message });
      else throw e;
    }
  }
  if (current !== undefined && issues.length < maxIssues)
    issues.push({ file, line: lineNo + 1, message: `COMMIT expected for table "${current.name}"` });
  if (issues.length > 0) throw new IptablesParseError(issues);
  return { family, tables: tables.map(freeze) };
}

/** The name in interfaces.md. */
export const parseIptablesSave = parseIptables;
