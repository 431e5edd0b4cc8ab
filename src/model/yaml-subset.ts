/**
 * A reader for the part of YAML that Kubernetes manifests are written in, and nothing more: it
 * gives one document's plain values, or declines (DECLINED) and leaves the document to the
 * general parsers (yaml-documents.ts: js-yaml, then the `yaml` package).
 *
 * Why hand-written: the whole `validate -f` of a 10,000-Service file (12 MB) must take ≤ 1.5 s,
 * and js-yaml, the fastest YAML parser on npm (no native or WebAssembly one is packaged; js-yaml
 * 5 is slower than 4), takes 2 s to parse it alone; the `yaml` package several times that. A
 * reader that knows only this subset, and builds nothing it does not return, reads it in a
 * fraction of that.
 *
 * The subset (YAML 1.2.2 section numbers), on lines without tabs or carriage returns:
 * - block mappings (§8.2.2) with plain or one-line quoted keys, `key:` then a value on the same
 *   line or a node on the following lines, more indented (a block sequence may also sit at the
 *   key's own indentation, §8.2.1 "compact" form);
 * - block sequences (§8.2.1), including a mapping that starts on the entry's line (`- key: v`);
 * - plain scalars on one line (§7.3.3), resolved with the core schema (yaml-core-scalar.ts);
 * - single- and double-quoted scalars on one line (§7.3.2, §7.3.1, with §5.7's escapes);
 * - flow sequences and mappings on one line (§7.4), of scalars or flow collections;
 * - comments (§6.6), blank lines, a `---` line (§9.1.3) with nothing but a comment after it.
 * Everything else declines the document: anchors, aliases, tags, `?` keys, block scalars,
 * anything over several lines but a block collection, duplicate keys, and any text this reader
 * is not sure to read as `yaml` does (test/model/yaml-subset.test.ts checks that as a
 * property against `yaml`'s own `toJS()`).
 */
import { plainScalarValue } from "./yaml-core-scalar.js";
import { StringCache } from "./yaml-string-cache.js";

/** The answer of a reader that is not sure. */
export const DECLINED: unique symbol = Symbol("declined");

/**
 * The items of the sequences being read, innermost last: a sequence is built from its slice of
 * this stack once its length is known. A sequence grown with `push` keeps the spare capacity
 * `push` reserves (17 slots for one item): on the 10,000-Service benchmark that was 16 MB of
 * 41 MB of decoded objects, all of it kept, copied by the garbage collector and touched fresh.
 */
const ITEMS: unknown[] = [];
let itemsTop = 0;

/** Thrown (one instance, made once) from deep inside the reader; DECLINED at the top. */
class Decline extends Error {}
const DECLINE = new Decline("outside the subset");

/**
 * Nesting the reader follows before it declines: Kubernetes objects nest about 10 levels, and a
 * deeper text is left to the paths that report the nesting limit (yaml-depth.ts).
 */
const MAX_DEPTH = 64;

/**
 * Keys the loader's `yaml` path treats apart: `<<` (a merge key; skipped there) and
 * `__proto__` (an own property there, the prototype setter in an object literal's assignment).
 */
function isSpecialKey(key: string): boolean {
  return key === "<<" || key === "__proto__";
}

/** An implicit key is at most 1024 characters (§6.5); longer ones are left to `yaml`. */
const MAX_KEY_LENGTH = 1000;

const SPACE = 0x20;
const NL = 0x0a;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;
const SQUOTE = 0x27;
const DQUOTE = 0x22;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

/**
 * Characters that are part of no scalar this reader reads: C0 controls (tab and CR included),
 * DEL, C1 controls, the byte-order mark, and the non-characters U+FFFE and U+FFFF (§5.1); also
 * U+FFFD, which decoding gives for bytes that are not UTF-8 (and for a lone surrogate of a
 * string input encoded): left to the readers of the decoded text.
 */
function unusual(c: number): boolean {
  return c < SPACE || (c >= 0x7f && c <= 0x9f) || c === 0xfeff || c >= 0xfffd;
}

/**
 * The bytes of unusual characters that are ASCII (the others are decoded first: a byte from 0x80
 * on is part of a UTF-8 sequence, checked by nonAsciiUnusual once its scalar is decoded).
 */
function unusualByte(c: number): boolean {
  return c < SPACE || c === 0x7f;
}

/** Whether `text`, decoded from `bytes` bytes, holds an unusual non-ASCII character. */
function nonAsciiUnusual(text: string, bytes: number): boolean {
  if (text.length === bytes) return false; // ASCII only: its bytes were checked
  for (let i = 0; i < text.length; i++) if (unusual(text.charCodeAt(i))) return true;
  return false;
}

/**
 * Characters that may not start a plain scalar here (§7.3.3 ns-plain-first, stricter): the
 * indicators, quotes and flow brackets (read elsewhere), and `-`, `?`, `:`, which may start one
 * only when followed by a non-blank (`-1`), handled by the caller for `-`.
 */
const NOT_PLAIN_FIRST = asciiTable("?:,[]{}#&*!|>'\"%@`");

/** A membership table of ASCII characters: a lookup per scalar, cheaper than a Set's hash. */
function asciiTable(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1;
  return t;
}

/** Whether the ASCII character `c` is in `table` (made by asciiTable). */
function inTable(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}

/**
 * Whether a plain scalar starting with `c` may resolve to a non-string (§10.3.2): only digits,
 * signs, `.`, `~` and the first letters of null, true and false start one.
 */
function mayBeNonString(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || inTable(MAY_BE_NON_STRING, c);
}
const MAY_BE_NON_STRING = asciiTable("+-.~nNtTfF");

/**
 * Whether `c` may follow a leading `-` in a plain scalar (§7.3.3 ns-plain-first): not a blank,
 * line end, flow indicator or `:` (stricter than the spec, which allows some of these in block
 * context).
 */
function plainAfterDash(c: number): boolean {
  return !(
    c === SPACE ||
    c === NL ||
    c === COLON ||
    c === COMMA ||
    c === LBRACKET ||
    c === RBRACKET ||
    c === LBRACE ||
    c === RBRACE ||
    c === HASH
  );
}

/** Escapes of double-quoted scalars (§5.7) that stand for one character. */
const ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
};
const HEX_ESCAPE_LENGTH: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/**
 * The value of the document in `text[from, to)` (null when it is empty), or DECLINED. The text
 * is UTF-8 bytes (what a file holds: read without decoding it all, see yaml-documents.ts) or a
 * string (encoded first; `from` and `to` are then offsets in it). `strings` (of the same bytes)
 * is shared by the documents of a file.
 */
export function readSubsetDocument(
  text: string | Uint8Array,
  from: number,
  to: number,
  strings?: StringCache,
): unknown {
  let bytes: Uint8Array;
  if (typeof text === "string") {
    bytes = Buffer.from(text.slice(from, to), "utf8");
    from = 0;
    to = bytes.length;
  } else bytes = text;
  try {
    return new SubsetReader(bytes, from, to, strings ?? new StringCache(bytes)).document();
  } catch (e) {
    if (e === DECLINE) return DECLINED;
    throw e;
  } finally {
    // Drop the references a declined document left on the stack.
    ITEMS.fill(undefined, 0, itemsTop);
    itemsTop = 0;
  }
}

/** The items pushed since `base`, as an array of exactly their number; pops them. */
function takeItems(base: number): unknown[] {
  let out: unknown[];
  if (itemsTop - base === 1) {
    // One item (an address, a port, a family) is most lists: a literal is the cheapest exact array.
    out = [ITEMS[base]];
    ITEMS[base] = undefined;
  } else {
    out = ITEMS.slice(base, itemsTop);
    ITEMS.fill(undefined, base, itemsTop);
  }
  itemsTop = base;
  return out;
}

class SubsetReader {
  /** The start of the line not read yet. */
  private pos: number;
  /**
   * The offset just after the scalar, flow collection or key read last (a field rather than a
   * returned pair: the reader allocates nothing it does not return).
   */
  private after = 0;

  constructor(
    private readonly s: Uint8Array,
    from: number,
    private readonly end: number,
    private readonly strings: StringCache,
  ) {
    this.pos = from;
  }

  document(): unknown {
    const s = this.s;
    const p = this.pos;
    if (s[p] === DASH && s[p + 1] === DASH && s[p + 2] === DASH) this.pos = this.endOfLine(p + 3);
    const indent = this.nextContent();
    if (indent === -1) return null;
    const value = this.blockNode(indent, 1);
    if (this.nextContent() !== -1) throw DECLINE;
    return value;
  }

  private code(i: number): number {
    return i < this.end ? this.s[i]! : NL;
  }

  /**
   * Skips blank and comment lines; the indentation of the next line with content (this.pos at
   * its start), or -1 at the end.
   */
  private nextContent(): number {
    const s = this.s;
    while (this.pos < this.end) {
      let i = this.pos;
      while (s[i] === SPACE) i++;
      const c = this.code(i);
      if (c === NL) this.pos = i + 1;
      else if (c === HASH) this.pos = this.lineAfter(i);
      else return i - this.pos;
    }
    return -1;
  }

  /** The start of the line after the one holding `i`. */
  private lineAfter(i: number): number {
    const nl = this.s.indexOf(NL, i);
    return nl === -1 || nl >= this.end ? this.end : nl + 1;
  }

  /** After a node ending at `i`: only blanks and a comment may follow; the next line's start. */
  private endOfLine(i: number): number {
    const start = i;
    while (this.code(i) === SPACE) i++;
    const c = this.code(i);
    if (c === NL) return i >= this.end ? this.end : i + 1;
    // A comment must be separated from the node by a blank (§6.6).
    if (c === HASH && i > start) return this.lineAfter(i);
    throw DECLINE;
  }

  /** Whether `i` holds a block sequence entry indicator (`-` and a blank or line end). */
  private isEntry(i: number): boolean {
    if (this.code(i) !== DASH) return false;
    const c = this.code(i + 1);
    return c === SPACE || c === NL;
  }

  /** The node whose first line (this.pos) is indented by `indent`. */
  private blockNode(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) throw DECLINE;
    const i = this.pos + indent;
    const c = this.code(i);
    if (c === LBRACKET || c === LBRACE) {
      // A flow collection on a line of its own (§8.2.3, flow in block).
      const value = this.flow(i, depth);
      this.pos = this.endOfLine(this.after);
      return value;
    }
    return this.isEntry(i)
      ? this.blockSequence(indent, depth)
      : this.blockMapping(i, indent, depth);
  }

  /** A block sequence whose entries sit at `indent`, the first on this.pos's line. */
  private blockSequence(indent: number, depth: number): unknown[] {
    const base = itemsTop;
    for (;;) {
      const i = this.pos + indent;
      let j = i + 1;
      while (this.code(j) === SPACE) j++;
      const c = this.code(j);
      if (c === NL || c === HASH) {
        // `-` alone: the entry is the node on the following lines, or null.
        this.pos = this.lineAfter(j);
        const next = this.nextContent();
        const item = next > indent ? this.blockNode(next, depth + 1) : null;
        ITEMS[itemsTop++] = item;
      } else if (this.isEntry(j)) {
        throw DECLINE; // `- - a`
      } else if (this.startsKey(j)) {
        const item = this.blockMapping(j, j - this.pos, depth + 1);
        ITEMS[itemsTop++] = item;
      } else {
        const item = this.inline(j, depth + 1);
        ITEMS[itemsTop++] = item;
        this.pos = this.endOfLine(this.after);
      }
      const next = this.nextContent();
      if (next === -1 || next < indent) return takeItems(base);
      if (next > indent) throw DECLINE;
      if (!this.isEntry(this.pos + indent)) return takeItems(base);
    }
  }

  /** Whether a mapping key starts at `i` (a key and `:` on this line). */
  private startsKey(i: number): boolean {
    const c = this.code(i);
    if (c === SQUOTE || c === DQUOTE) {
      this.quoted(i);
      return this.keyColon(this.after) !== -1;
    }
    if (c === LBRACKET || c === LBRACE) return false;
    const end = this.plainEnd(i, true);
    return end !== -1 && this.code(end) === COLON;
  }

  /** After a quoted key ending at `i`: the offset past its `:` separator, or -1. */
  private keyColon(i: number): number {
    if (this.code(i) !== COLON) return -1;
    const c = this.code(i + 1);
    return c === SPACE || c === NL ? i + 1 : -1;
  }

  /**
   * A block mapping whose keys sit at `indent`, the first at offset `first` (on this.pos's
   * line, maybe after a sequence entry's `- `).
   */
  private blockMapping(first: number, indent: number, depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) throw DECLINE;
    const out: Record<string, unknown> = {};
    let k = first;
    for (;;) {
      this.entry(out, k, indent, depth);
      const next = this.nextContent();
      if (next === -1 || next < indent) return out;
      if (next > indent) throw DECLINE;
      k = this.pos + indent;
      if (this.isEntry(k)) return out; // a sequence at its parent key's indentation ends here
    }
  }

  /** One `key: value` whose key starts at `k`; this.pos moves past the value. */
  private entry(out: Record<string, unknown>, k: number, indent: number, depth: number): void {
    const key = this.key(k);
    const after = this.after;
    if (isSpecialKey(key) || Object.hasOwn(out, key)) throw DECLINE;
    let i = after;
    while (this.code(i) === SPACE) i++;
    const c = this.code(i);
    if (c === NL || c === HASH) {
      if (c === HASH && i === after) throw DECLINE;
      this.pos = this.lineAfter(i);
      const next = this.nextContent();
      if (next > indent) out[key] = this.blockNode(next, depth + 1);
      else if (next === indent && this.isEntry(this.pos + indent))
        out[key] = this.blockSequence(indent, depth + 1);
      else out[key] = null;
      return;
    }
    out[key] = this.inline(i, depth + 1);
    this.pos = this.endOfLine(this.after);
  }

  /** The key starting at `k` (this.after: the offset after its `:`). */
  private key(k: number): string {
    const c = this.code(k);
    if (c === SQUOTE || c === DQUOTE) {
      const key = this.quoted(k);
      const after = this.keyColon(this.after);
      if (after === -1 || after - k > MAX_KEY_LENGTH) throw DECLINE;
      this.after = after;
      return key;
    }
    if (c === DASH) throw DECLINE; // `-x: 1` is a key, but near a sequence entry: not sure
    const end = this.plainEnd(k, true);
    if (end === -1 || this.code(end) !== COLON || end - k > MAX_KEY_LENGTH) throw DECLINE;
    this.after = end + 1;
    const text = this.text(k, end);
    if (!mayBeNonString(this.s[k]!)) return text;
    const v = plainScalarValue(text);
    // A null key is "" in `yaml`'s toJS() and "null" on the loader's slow path: left to it.
    if (v === undefined || v === null) throw DECLINE;
    return String(v);
  }

  /**
   * The end of the block plain scalar starting at `i` (§7.3.3): at a `: `, a ` #` or the line
   * end, trailing blanks excluded; -1 where the reader is not sure. With `key`, the scalar may
   * end at `: `; without, that is a nested mapping the reader declines.
   */
  private plainEnd(i: number, key: boolean): number {
    const s = this.s;
    const first = this.code(i);
    if (inTable(NOT_PLAIN_FIRST, first) || first === NL || first === SPACE) return -1;
    let j = i;
    let last = i; // one past the last non-blank
    for (;;) {
      const c = j < this.end ? s[j]! : NL;
      if (c === NL) return last;
      if (c === COLON) {
        const n = this.code(j + 1);
        if (n === SPACE || n === NL) return key && last === j ? j : -1;
      } else if (c === HASH) {
        if (s[j - 1] === SPACE) return key ? -1 : last;
      } else if (unusualByte(c)) return -1;
      j++;
      if (c !== SPACE) last = j;
    }
  }

  /** A scalar or flow collection starting at `i` on this line (this.after: its end). */
  private inline(i: number, depth: number): unknown {
    const c = this.code(i);
    if (c === SQUOTE || c === DQUOTE) return this.quoted(i);
    if (c === LBRACKET || c === LBRACE) return this.flow(i, depth);
    if (c === DASH && !plainAfterDash(this.code(i + 1))) throw DECLINE;
    const end = this.plainEnd(i, false);
    if (end === -1) throw DECLINE;
    this.after = end;
    return this.plain(i, end);
  }

  /** The value of the plain scalar `text[i, end)`. */
  private plain(i: number, end: number): unknown {
    const text = this.text(i, end);
    if (!mayBeNonString(this.s[i]!)) return text;
    const v = plainScalarValue(text);
    if (v === undefined) throw DECLINE;
    return v;
  }

  /** A quoted scalar starting at `i` and ending on the same line. */
  private quoted(i: number): string {
    return this.code(i) === SQUOTE ? this.singleQuoted(i) : this.doubleQuoted(i);
  }

  /** The text of the bytes `[from, to)` (shared when short, see StringCache). */
  private text(from: number, to: number): string {
    const text = this.strings.slice(from, to);
    if (nonAsciiUnusual(text, to - from)) throw DECLINE;
    return text;
  }

  private singleQuoted(i: number): string {
    let out = "";
    let from = i + 1;
    for (let j = from; ; j++) {
      const c = this.code(j);
      if (c === SQUOTE) {
        out += this.text(from, j);
        if (this.code(j + 1) !== SQUOTE) {
          this.after = j + 1;
          return out;
        }
        out += "'"; // '' is one quote (§7.3.2)
        from = ++j + 1;
      } else if (c === NL || unusualByte(c)) throw DECLINE;
    }
  }

  private doubleQuoted(i: number): string {
    let out = "";
    let from = i + 1;
    for (let j = from; ; j++) {
      const c = this.code(j);
      if (c === DQUOTE) {
        this.after = j + 1;
        return out + this.text(from, j);
      }
      if (c === NL || unusualByte(c)) throw DECLINE;
      if (c !== BACKSLASH) continue;
      out += this.text(from, j);
      const e = String.fromCharCode(this.code(j + 1));
      const one = ESCAPES[e];
      if (one !== undefined) {
        out += one;
        j++;
      } else {
        const n = HEX_ESCAPE_LENGTH[e];
        if (n === undefined) throw DECLINE;
        if (j + 2 + n > this.end) throw DECLINE;
        const hex = this.text(j + 2, j + 2 + n);
        if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) throw DECLINE;
        const code = parseInt(hex, 16);
        if (code > 0x10ffff) throw DECLINE;
        out += String.fromCodePoint(code);
        j += 1 + n;
      }
      from = j + 1;
    }
  }

  /** A flow sequence or mapping starting at `i` and closed on the same line (§7.4). */
  private flow(i: number, depth: number): unknown {
    if (depth > MAX_DEPTH) throw DECLINE;
    const seq = this.code(i) === LBRACKET;
    const close = seq ? RBRACKET : RBRACE;
    const base = itemsTop;
    const map: Record<string, unknown> = {};
    let j = this.skipSpaces(i + 1);
    if (this.code(j) === close) {
      this.after = j + 1;
      return seq ? [] : map;
    }
    for (;;) {
      if (seq) {
        const item = this.flowNode(j, depth + 1);
        ITEMS[itemsTop++] = item;
        j = this.skipSpaces(this.after);
      } else {
        const k = this.flowNode(j, depth + 1);
        // A collection or null as a key is left to the slow path.
        if (typeof k !== "string" && typeof k !== "number" && typeof k !== "boolean") throw DECLINE;
        const key = String(k);
        if (isSpecialKey(key) || Object.hasOwn(map, key)) throw DECLINE;
        // `{a: 1}`; `{"a":1}` and `{a}` are YAML too, but not this reader's.
        const end = this.after;
        if (this.code(end) !== COLON || this.code(end + 1) !== SPACE) throw DECLINE;
        map[key] = this.flowNode(this.skipSpaces(end + 1), depth + 1);
        j = this.skipSpaces(this.after);
      }
      const c = this.code(j);
      if (c === close) {
        this.after = j + 1;
        return seq ? takeItems(base) : map;
      }
      if (c !== COMMA) throw DECLINE;
      j = this.skipSpaces(j + 1);
      if (this.code(j) === close || this.code(j) === COMMA) throw DECLINE; // `[a,]`, `[a,,b]`
    }
  }

  private skipSpaces(i: number): number {
    while (this.code(i) === SPACE) i++;
    return i;
  }

  /** A node inside a flow collection: a quoted or plain scalar, or a nested collection. */
  private flowNode(i: number, depth: number): unknown {
    const c = this.code(i);
    if (c === SQUOTE || c === DQUOTE) return this.quoted(i);
    if (c === LBRACKET || c === LBRACE) return this.flow(i, depth);
    if (inTable(NOT_PLAIN_FIRST, c) || c === NL || c === SPACE) throw DECLINE;
    // `-` starts a plain scalar only before a character that may follow in one (`-1`, `-x`);
    // `[-]` is a block sequence indicator in a flow collection to `yaml`: an error.
    if (c === DASH && !plainAfterDash(this.code(i + 1))) throw DECLINE;
    // A flow plain scalar (§7.3.3, flow context): up to `,`, `]`, `}` or `: `.
    const s = this.s;
    let j = i;
    let last = i;
    for (;;) {
      const d = j < this.end ? s[j]! : NL;
      if (d === COMMA || d === RBRACKET || d === RBRACE) break;
      if (d === COLON) {
        const n = this.code(j + 1);
        if (n === SPACE || n === COMMA || n === RBRACKET || n === RBRACE || n === NL) break;
      }
      if (d === NL || d === LBRACKET || d === LBRACE || unusualByte(d)) throw DECLINE;
      if (d === HASH && s[j - 1] === SPACE) throw DECLINE;
      j++;
      if (d !== SPACE) last = j;
    }
    this.after = last;
    return this.plain(i, last);
  }
}
