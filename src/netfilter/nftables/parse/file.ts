/**
 * What `nft -f` takes, in the two forms kube-proxy and `nft list` use: knftables transaction
 * lines (`add table|chain|set|map|rule|element ...`, `insert rule`, `create ...`,
 * `flush chain|set|map|table`, `delete table|chain|set|map|element`) and the nested
 * `table FAMILY NAME { ... }` listing. Commands apply in order, as nft applies a transaction:
 * a rule or element that names a chain or set not declared before it is an error, as in nft
 * ("No such file or directory"). Errors are `FILE:LINE:COL: message`.
 */
import type {
  BaseChainSpec,
  ChainType,
  DataType,
  Expr,
  Family,
  Hook,
  MapValue,
  NamedSet,
  Rule,
  SetElement,
  SetFlag,
  Statement,
  Table,
  Verdict,
} from "../model.js";
import { parseIP } from "../../../net/index.js";
import { parseRule } from "./rule.js";
import { Cursor, NftParseError, tokenize, type Token } from "./tokens.js";

export interface NftRuleSet {
  /** Tables in creation order, objects in creation order inside them. */
  readonly tables: readonly Table[];
}

interface ChainState {
  name: string;
  comment?: string;
  base?: BaseChainSpec;
  rules: Rule[];
}
interface SetState {
  decl: Omit<NamedSet, "elements">;
  elements: SetElement[];
}
interface TableState {
  family: Family;
  name: string;
  comment?: string;
  chains: Map<string, ChainState>;
  sets: Map<string, SetState>;
}

const FAMILIES = new Set(["ip", "ip6", "inet"]);
const CHAIN_TYPES = new Set(["filter", "nat", "route"]);
const HOOKS = new Set(["prerouting", "input", "forward", "output", "postrouting"]);
const DATA_TYPES = new Set([
  "ipv4_addr",
  "ipv6_addr",
  "inet_proto",
  "inet_service",
  "mark",
  "ifname",
  "verdict",
]);
const SET_FLAGS = new Set(["constant", "interval", "timeout", "dynamic"]);
const PRIORITY_NAMES: Readonly<Record<string, number>> = {
  raw: -300,
  mangle: -150,
  dstnat: -100,
  filter: 0,
  security: 50,
  srcnat: 100,
};

/** Splits the text into statements: tokens up to a newline or `;` outside braces. */
function statements(text: string, file: string): Token[][] {
  const out: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  const lines = text.split("\n");
  lines.forEach((raw, idx) => {
    const line = raw.replace(/\r$/, "");
    if (depth === 0 && /^\s*#/.test(line)) return;
    for (const t of tokenize(line, idx + 1, 1, file)) {
      if (t.kind === "punct" && t.text === "{") depth++;
      if (t.kind === "punct" && t.text === "}") depth--;
      if (depth < 0) throw new NftParseError(file, t.line, t.col, 'unbalanced "}"');
      current.push(t);
    }
    if (depth === 0 && current.length > 0) {
      out.push(current);
      current = [];
    }
  });
  if (depth !== 0) {
    const t = current[0];
    throw new NftParseError(
      file,
      t?.line ?? lines.length,
      t?.col ?? 1,
      'unbalanced "{": missing "}"',
    );
  }
  return out;
}

export function parseNftables(text: string, file = "<input>"): NftRuleSet {
  const p = new Parser(file);
  for (const toks of statements(text, file)) p.command(toks);
  return p.result();
}

class Parser {
  private readonly tables = new Map<string, TableState>();
  constructor(private readonly file: string) {}

  result(): NftRuleSet {
    return {
      tables: [...this.tables.values()].map((t) => ({
        family: t.family,
        name: t.name,
        ...(t.comment !== undefined ? { comment: t.comment } : {}),
        sets: [...t.sets.values()].map((s) => ({ ...s.decl, elements: [...s.elements] })),
        chains: [...t.chains.values()].map((c) => ({ ...c, rules: [...c.rules] })),
      })),
    };
  }

  private cursor(toks: readonly Token[]): Cursor {
    const last = toks[toks.length - 1];
    return new Cursor(toks, this.file, {
      line: last?.line ?? 1,
      col: last === undefined ? 1 : last.col + last.text.length,
    });
  }

  command(toks: readonly Token[]): void {
    // `a ; b` on one line: split at top-level semicolons.
    let depth = 0;
    let start = 0;
    for (let i = 0; i <= toks.length; i++) {
      const t = toks[i];
      if (t !== undefined && t.kind === "punct") {
        if (t.text === "{") depth++;
        if (t.text === "}") depth--;
      }
      if (t === undefined || (depth === 0 && t.kind === "punct" && t.text === ";")) {
        if (i > start) this.one(this.cursor(toks.slice(start, i)));
        start = i + 1;
      }
    }
  }

  private one(c: Cursor): void {
    const verb = c.next("a command");
    switch (verb.text) {
      case "table":
        return this.nestedTable(c);
      case "add":
      case "create":
      case "insert":
      case "flush":
      case "delete":
      case "destroy":
        return this.verb(c, verb);
      default:
        throw c.error(verb, `unknown command "${verb.text}"`);
    }
  }

  private family(c: Cursor): Family {
    const f = c.next("a family");
    if (!FAMILIES.has(f.text)) throw c.error(f, `unknown family "${f.text}" (ip, ip6 or inet)`);
    return f.text as Family;
  }

  private table(c: Cursor, family: Family, nameTok: Token): TableState {
    const t = this.tables.get(`${family} ${nameTok.text}`);
    if (t === undefined) throw c.error(nameTok, `no such table: ${family} ${nameTok.text}`);
    return t;
  }

  private verb(c: Cursor, verb: Token): void {
    const what = c.next("an object type");
    switch (what.text) {
      case "table": {
        const family = this.family(c);
        const name = c.next("a table name");
        const key = `${family} ${name.text}`;
        const existing = this.tables.get(key);
        if (verb.text === "delete" || verb.text === "destroy") {
          if (existing === undefined && verb.text === "delete")
            throw c.error(name, `no such table: ${key}`);
          this.tables.delete(key);
          return;
        }
        if (verb.text === "flush") {
          const t = this.table(c, family, name);
          for (const ch of t.chains.values()) ch.rules = [];
          for (const s of t.sets.values()) s.elements = [];
          return;
        }
        if (verb.text === "create" && existing !== undefined)
          throw c.error(name, `table ${key} exists`);
        const t: TableState = existing ?? {
          family,
          name: name.text,
          chains: new Map(),
          sets: new Map(),
        };
        this.tables.set(key, t);
        if (c.accept("{")) {
          while (!c.accept("}")) {
            if (c.accept(";")) continue;
            const k = c.next("comment");
            if (k.text !== "comment") throw c.error(k, `unsupported table option "${k.text}"`);
            t.comment = this.string(c);
          }
        }
        return this.end(c);
      }
      case "chain":
        return this.chainCommand(c, verb);
      case "set":
      case "map":
        return this.setCommand(c, verb, what.text);
      case "rule":
        return this.ruleCommand(c, verb);
      case "element":
        return this.elementCommand(c, verb);
      default:
        throw c.error(what, `unknown object type "${what.text}"`);
    }
  }

  private end(c: Cursor): void {
    if (!c.done()) throw c.error(c.peek() as Token, `unexpected "${c.peekText()}"`);
  }

  private string(c: Cursor): string {
    const s = c.next("a quoted string");
    if (s.kind !== "string") throw c.error(s, `expected a quoted string, found "${s.text}"`);
    return s.text;
  }

  private chainCommand(c: Cursor, verb: Token): void {
    const family = this.family(c);
    const t = this.table(c, family, c.next("a table name"));
    const name = c.next("a chain name");
    const existing = t.chains.get(name.text);
    switch (verb.text) {
      case "delete":
      case "destroy":
        if (existing === undefined && verb.text === "delete")
          throw c.error(name, `no such chain: ${name.text}`);
        if (existing !== undefined && existing.rules.length > 0)
          throw c.error(name, `chain ${name.text} is not empty (Device or resource busy)`);
        t.chains.delete(name.text);
        return this.end(c);
      case "flush":
        if (existing === undefined) throw c.error(name, `no such chain: ${name.text}`);
        existing.rules = [];
        return this.end(c);
      case "add":
      case "create": {
        if (verb.text === "create" && existing !== undefined)
          throw c.error(name, `chain ${name.text} exists`);
        const chain = existing ?? { name: name.text, rules: [] };
        if (c.accept("{")) this.chainBody(c, chain, "}");
        this.end(c);
        t.chains.set(name.text, chain);
        return;
      }
      default:
        throw c.error(verb, `"${verb.text} chain" is not supported`);
    }
  }

  /** `type T hook H priority P ; policy X ; comment "c" ;` up to `close`. */
  private chainBody(c: Cursor, chain: ChainState, close: string): void {
    while (!c.accept(close)) {
      if (c.accept(";")) continue;
      const k = c.next("type, policy or comment");
      if (k.text === "comment") {
        chain.comment = this.string(c);
        continue;
      }
      if (k.text === "policy") {
        const p = c.next("accept or drop");
        if (p.text !== "accept" && p.text !== "drop") throw c.error(p, `bad policy "${p.text}"`);
        if (chain.base === undefined) throw c.error(k, "policy on a regular chain");
        chain.base = { ...chain.base, policy: p.text };
        continue;
      }
      if (k.text !== "type") throw c.error(k, `unexpected "${k.text}" in a chain declaration`);
      const type = c.next("a chain type");
      if (!CHAIN_TYPES.has(type.text)) throw c.error(type, `unknown chain type "${type.text}"`);
      c.expect("hook");
      const hook = c.next("a hook");
      if (!HOOKS.has(hook.text)) throw c.error(hook, `unknown hook "${hook.text}"`);
      c.expect("priority");
      const priority = this.priority(c, hook.text as Hook);
      // The kernel runs NAT only after conntrack (-200): nat chains at or before it are refused.
      if (type.text === "nat" && priority <= -200)
        throw c.error(type, `nat chain priority ${priority} must be above conntrack's -200`);
      chain.base = {
        type: type.text as ChainType,
        hook: hook.text as Hook,
        priority,
        ...(chain.base?.policy !== undefined ? { policy: chain.base.policy } : {}),
      };
    }
  }

  /** A number, or a standard name valid at this hook with an optional `+ N` / `- N`. */
  private priority(c: Cursor, hook: Hook): number {
    const t = c.next("a priority");
    let base: number;
    if (/^-?\d+$/.test(t.text)) base = Number(t.text);
    else {
      const named = PRIORITY_NAMES[t.text];
      const valid =
        named !== undefined &&
        (t.text !== "dstnat" || hook === "prerouting") &&
        (t.text !== "srcnat" || hook === "postrouting");
      if (!valid) throw c.error(t, `invalid priority "${t.text}" for hook ${hook}`);
      base = named;
    }
    const op = c.peekText();
    if ((op === "+" || op === "-") && /^\d+$/.test(c.peekText(1) ?? "")) {
      c.next(op);
      const n = Number(c.next("an offset").text);
      base += op === "+" ? n : -n;
    }
    return base;
  }

  private setCommand(c: Cursor, verb: Token, kind: string): void {
    const family = this.family(c);
    const t = this.table(c, family, c.next("a table name"));
    const name = c.next(`a ${kind} name`);
    const existing = t.sets.get(name.text);
    switch (verb.text) {
      case "delete":
      case "destroy":
        if (existing === undefined && verb.text === "delete")
          throw c.error(name, `no such ${kind}: ${name.text}`);
        t.sets.delete(name.text);
        return this.end(c);
      case "flush":
        if (existing === undefined) throw c.error(name, `no such ${kind}: ${name.text}`);
        existing.elements = [];
        return this.end(c);
      case "add":
      case "create": {
        if (verb.text === "create" && existing !== undefined)
          throw c.error(name, `${kind} ${name.text} exists`);
        c.expect("{");
        const decl = this.setBody(c, kind as "set" | "map", name.text, t);
        this.end(c);
        if (existing === undefined) t.sets.set(name.text, decl);
        return;
      }
      default:
        throw c.error(verb, `"${verb.text} ${kind}" is not supported`);
    }
  }

  /** The inside of a set/map declaration up to its `}` (elements included, nested form). */
  private setBody(c: Cursor, kind: "set" | "map", name: string, t: TableState): SetState {
    let keyType: DataType[] | undefined;
    let valueType: DataType | undefined;
    let flags: SetFlag[] = [];
    let timeout: number | undefined;
    let comment: string | undefined;
    let elementsAt: number | undefined;
    const pending: Token[][] = [];
    while (!c.accept("}")) {
      if (c.accept(";")) continue;
      const k = c.next("a set property");
      switch (k.text) {
        case "type": {
          const types: DataType[] = [this.dataType(c)];
          while (c.accept(".")) types.push(this.dataType(c));
          keyType = types;
          if (c.accept(":")) valueType = this.dataType(c);
          break;
        }
        case "flags": {
          flags = [];
          for (;;) {
            const f = c.next("a flag");
            if (!SET_FLAGS.has(f.text)) throw c.error(f, `unknown set flag "${f.text}"`);
            flags.push(f.text as SetFlag);
            if (!(c.peekText() === "," && SET_FLAGS.has(c.peekText(1) ?? ""))) break;
            c.next(",");
          }
          break;
        }
        case "timeout":
          timeout = this.time(c);
          break;
        case "size":
          c.next("a size");
          break;
        case "comment":
          comment = this.string(c);
          break;
        case "elements": {
          c.expect("=");
          elementsAt = pending.length;
          pending.push(this.braced(c));
          break;
        }
        default:
          throw c.error(k, `unsupported ${kind} property "${k.text}"`);
      }
    }
    if (keyType === undefined) throw c.errorAtEnd(`${kind} ${name}: no type`);
    if (kind === "map" && valueType === undefined) throw c.errorAtEnd(`map ${name}: no value type`);
    if (kind === "set" && valueType !== undefined)
      throw c.errorAtEnd(`set ${name}: a set has no value type`);
    const decl: Omit<NamedSet, "elements"> = {
      kind,
      name,
      keyType,
      ...(valueType !== undefined ? { valueType } : {}),
      flags,
      ...(timeout !== undefined ? { timeout } : {}),
      ...(comment !== undefined ? { comment } : {}),
    };
    const state: SetState = { decl, elements: [] };
    if (elementsAt !== undefined) {
      t.sets.set(name, state);
      this.elements(this.cursor(pending[elementsAt] as Token[]), state, t);
    }
    return state;
  }

  /** The tokens of a `{ ... }` group (the cursor is at `{`), without the outer braces. */
  private braced(c: Cursor): Token[] {
    c.expect("{");
    const out: Token[] = [];
    let depth = 1;
    for (;;) {
      const t = c.next("}");
      if (t.kind === "punct" && t.text === "{") depth++;
      if (t.kind === "punct" && t.text === "}" && --depth === 0) return out;
      out.push(t);
    }
  }

  private dataType(c: Cursor): DataType {
    const t = c.next("a data type");
    if (!DATA_TYPES.has(t.text)) throw c.error(t, `unsupported data type "${t.text}"`);
    return t.text as DataType;
  }

  /** `10800s`, `3h`, `1m30s`, `1d2h` → seconds. */
  private time(c: Cursor): number {
    const t = c.next("a time");
    const m = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(t.text);
    if (m === null || t.text === "") throw c.error(t, `bad time "${t.text}"`);
    return (
      Number(m[1] ?? 0) * 86400 +
      Number(m[2] ?? 0) * 3600 +
      Number(m[3] ?? 0) * 60 +
      Number(m[4] ?? 0)
    );
  }

  private ruleCommand(c: Cursor, verb: Token): void {
    if (verb.text !== "add" && verb.text !== "insert")
      throw c.error(verb, `"${verb.text} rule" is not supported (rules are added or inserted)`);
    const family = this.family(c);
    const t = this.table(c, family, c.next("a table name"));
    const chainTok = c.next("a chain name");
    const chain = t.chains.get(chainTok.text);
    if (chain === undefined) throw c.error(chainTok, `no such chain: ${chainTok.text}`);
    const rule = this.checkedRule(c, t);
    if (verb.text === "insert") chain.rules.unshift(rule);
    else chain.rules.push(rule);
  }

  private checkedRule(c: Cursor, t: TableState): Rule {
    const start = c.peek();
    const rule = parseRule(c);
    const at = start ?? ({ line: 1, col: 1 } as Token);
    const refs = (v: Verdict): void => {
      if ((v.kind === "jump" || v.kind === "goto") && !t.chains.has(v.chain))
        throw new NftParseError(
          this.file,
          at.line,
          at.col,
          `${v.kind} to undefined chain "${v.chain}"`,
        );
    };
    const setRef = (name: string): void => {
      if (!t.sets.has(name))
        throw new NftParseError(this.file, at.line, at.col, `undefined set "@${name}"`);
    };
    // nft's evaluation: `meta l4proto P` (or a `tcp`/`udp`/`sctp` field) fixes the transport
    // protocol; a later field of another one is "conflicting protocols specified".
    let l4: string | undefined;
    const l4Of = (e: Expr): void => {
      if (e.kind === "concat") return e.parts.forEach(l4Of);
      if (
        e.kind !== "payload" ||
        e.protocol === "ip" ||
        e.protocol === "ip6" ||
        e.protocol === "th"
      )
        return;
      if (l4 !== undefined && l4 !== e.protocol)
        throw new NftParseError(
          this.file,
          at.line,
          at.col,
          `conflicting protocols specified: ${l4} vs. ${e.protocol}`,
        );
      l4 = e.protocol;
    };
    for (const s of rule.statements) {
      if (s.kind === "match") {
        l4Of(s.left);
        if (
          s.left.kind === "meta" &&
          s.left.key === "l4proto" &&
          s.op === "==" &&
          s.right.kind === "value"
        )
          l4 ??= s.right.text;
      }
      if (s.kind === "vmap") l4Of(s.key);
      if (s.kind === "verdict") refs(s.verdict);
      if (s.kind === "vmap") {
        if (s.map.kind === "set-ref") setRef(s.map.name);
        else for (const e of s.map.entries) refs(e.verdict);
      }
      if (s.kind === "match" && s.right.kind === "set-ref") setRef(s.right.name);
      if (s.kind === "match" && s.left.kind === "meta" && s.left.key === "l4proto")
        if (s.op === "==" && s.right.kind === "set-literal") l4 ??= "{set}";
      if (s.kind === "set-update") setRef(s.set);
      const problem = natOrRejectProblem(s, t.family, l4);
      if (problem !== undefined) throw new NftParseError(this.file, at.line, at.col, problem);
    }
    return rule;
  }

  private elementCommand(c: Cursor, verb: Token): void {
    const family = this.family(c);
    const t = this.table(c, family, c.next("a table name"));
    const name = c.next("a set name");
    const set = t.sets.get(name.text);
    if (set === undefined) throw c.error(name, `no such set: ${name.text}`);
    const body = this.cursor(this.braced(c));
    this.end(c);
    if (verb.text === "add" || verb.text === "create") return this.elements(body, set, t);
    if (verb.text === "delete" || verb.text === "destroy") {
      const drop = new Set<string>();
      const tmp: SetState = { decl: set.decl, elements: [] };
      this.elements(body, tmp, t);
      for (const e of tmp.elements) drop.add(e.key.join(" . "));
      set.elements = set.elements.filter((e) => !drop.has(e.key.join(" . ")));
      return;
    }
    throw c.error(verb, `"${verb.text} element" is not supported`);
  }

  /** `k1 . k2 [timeout T] [comment "c"] [: value] , ...` into `set`. */
  private elements(c: Cursor, set: SetState, t: TableState): void {
    const width = set.decl.keyType.length;
    while (!c.done()) {
      const first = c.peek() as Token;
      const key = [c.next("an element").text];
      while (c.accept(".")) key.push(c.next("a key component").text);
      if (key.length !== width)
        throw c.error(first, `element has ${key.length} key parts, ${set.decl.name} has ${width}`);
      let timeout: number | undefined;
      let comment: string | undefined;
      let value: MapValue | undefined;
      for (;;) {
        if (c.accept("timeout")) timeout = this.time(c);
        else if (c.accept("expires")) this.time(c);
        else if (c.accept("comment")) comment = this.string(c);
        else break;
      }
      if (c.accept(":")) {
        const v = c.next("a value");
        if (set.decl.valueType === "verdict") {
          const verdict = this.verdictOf(c, v);
          if ((verdict.kind === "jump" || verdict.kind === "goto") && !t.chains.has(verdict.chain))
            throw c.error(v, `${verdict.kind} to undefined chain "${verdict.chain}"`);
          value = { kind: "verdict", verdict };
        } else value = { kind: "value", text: v.text };
      }
      if (set.decl.kind === "map" && value === undefined)
        throw c.error(first, `map ${set.decl.name}: element without a value`);
      const e: SetElement = {
        key,
        ...(value !== undefined ? { value } : {}),
        ...(comment !== undefined ? { comment } : {}),
        ...(timeout !== undefined ? { timeout } : {}),
      };
      const k = key.join(" . ");
      const at = set.elements.findIndex((x) => x.key.join(" . ") === k);
      if (at < 0) set.elements.push(e);
      if (!c.done()) c.expect(",");
    }
  }

  private verdictOf(c: Cursor, v: Token): Verdict {
    switch (v.text) {
      case "accept":
      case "drop":
      case "return":
      case "continue":
        return { kind: v.text };
      case "jump":
      case "goto":
        return { kind: v.text, chain: c.next("a chain name").text };
      default:
        throw c.error(v, `"${v.text}" is not a verdict`);
    }
  }

  /** `table FAMILY NAME { ... }` as `nft list` prints it. */
  private nestedTable(c: Cursor): void {
    const family = this.family(c);
    const name = c.next("a table name");
    const key = `${family} ${name.text}`;
    const t: TableState = this.tables.get(key) ?? {
      family,
      name: name.text,
      chains: new Map(),
      sets: new Map(),
    };
    this.tables.set(key, t);
    const body = this.braced(c);
    this.end(c);
    // Re-split the body into its lines: each line is one declaration or rule.
    const byLine: Token[][] = [];
    let depth = 0;
    let cur: Token[] = [];
    let lastLine = -1;
    for (const tok of body) {
      if (depth === 0 && tok.line !== lastLine && cur.length > 0) {
        byLine.push(cur);
        cur = [];
      }
      if (tok.kind === "punct" && tok.text === "{") depth++;
      if (tok.kind === "punct" && tok.text === "}") depth--;
      cur.push(tok);
      lastLine = tok.line;
    }
    if (cur.length > 0) byLine.push(cur);
    // nft declares a block's chains before it adds rules and elements that refer to them.
    for (const line of byLine)
      if (line[0]?.text === "chain" && line[1] !== undefined && !t.chains.has(line[1].text))
        t.chains.set(line[1].text, { name: line[1].text, rules: [] });
    const chains: Cursor[] = [];
    for (const line of byLine) {
      const lc = this.cursor(line);
      const k = lc.next("a declaration");
      if (k.text === "comment") {
        t.comment = this.string(lc);
        this.end(lc);
      } else if (k.text === "chain") chains.push(lc);
      else if (k.text === "set" || k.text === "map") {
        const n = lc.next("a name");
        lc.expect("{");
        const decl = this.setBody(lc, k.text, n.text, t);
        this.end(lc);
        if (!t.sets.has(n.text)) t.sets.set(n.text, decl);
      } else throw lc.error(k, `unexpected "${k.text}" in a table`);
    }
    for (const lc of chains) this.nestedChain(lc, t);
  }

  private nestedChain(c: Cursor, t: TableState): void {
    const name = c.next("a chain name");
    const chain: ChainState = t.chains.get(name.text) ?? { name: name.text, rules: [] };
    t.chains.set(name.text, chain);
    const body = this.braced(c);
    this.end(c);
    const lines = new Map<number, Token[]>();
    for (const tok of body) {
      const l = lines.get(tok.line) ?? [];
      l.push(tok);
      lines.set(tok.line, l);
    }
    for (const line of lines.values()) {
      const first = line[0]?.text;
      if (first === "type" || first === "policy" || first === "comment") {
        const lc = this.cursor([...line, { kind: "punct", text: "}", line: 0, col: 0 }]);
        this.chainBody(lc, chain, "}");
        continue;
      }
      const lc = this.cursor(line);
      chain.rules.push(this.checkedRule(lc, t));
    }
  }
}

/**
 * What nft refuses in NAT and reject statements: a port mapping without a transport protocol
 * match before it, a `snat` without `ip`/`ip6` in an inet table, an ICMP kind of the other
 * family (`icmpx` only in inet).
 */
function natOrRejectProblem(
  s: Statement,
  family: Family,
  l4: string | undefined,
): string | undefined {
  switch (s.kind) {
    case "dnat":
    case "snat":
    case "redirect": {
      const hasPort = s.kind === "snat" ? s.to.port !== undefined : s.port !== undefined;
      if (hasPort && l4 === undefined)
        return `${s.kind}: transport protocol mapping is only valid after transport protocol match`;
      if (s.kind === "snat" && family === "inet" && s.family === undefined)
        return "snat: ip or ip6 must be specified with address for inet tables";
      if (s.kind === "snat" && s.family !== undefined && family !== "inet" && s.family !== family)
        return `snat ${s.family}: conflicting family in an ${family} table`;
      const address = s.kind === "snat" ? s.to.address : s.kind === "dnat" ? s.address : undefined;
      const want = s.kind === "snat" && s.family !== undefined ? s.family : family;
      if (address !== undefined && want !== "inet") {
        const v6 = parseIP(address, "lenient")?.family === "IPv6";
        if (v6 !== (want === "ip6"))
          return `${s.kind} to ${address}: not an address of the ${want} family`;
      }
      return undefined;
    }
    case "reject": {
      const w = s.with;
      if (w?.kind === "tcp reset" && l4 !== undefined && l4 !== "tcp" && l4 !== "{set}")
        return `reject with tcp reset: you cannot use tcp reset with this protocol (${l4})`;
      if (w === undefined || w.kind === "tcp reset" || family === "inet") return undefined;
      if (w.kind === "icmpx") return "reject with icmpx: abstracted ICMP unreachable not supported";
      if ((w.kind === "icmp") !== (family === "ip"))
        return `reject with ${w.kind}: not an ICMP kind of the ${family} family`;
      return undefined;
    }
    default:
      return undefined;
  }
}
