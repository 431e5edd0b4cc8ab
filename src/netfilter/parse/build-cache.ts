/**
 * Match and target values are immutable, so rules written alike share one instance: a
 * kube-proxy dump repeats the same comment, port and probability thousands of times, and
 * sharing keeps the parsed rule set small (most of a large parse is garbage collection, whose
 * cost grows with what the parse keeps alive).
 *
 * The key of a value is the word sequence that built it: the extension, the rule's family and
 * `-p` if any (`tcp`, `!tcp`), then each option (`!`, name, arguments). It is stored as a trie of maps keyed by those
 * words rather than as one joined string, so a lookup allocates nothing and a unique value (a
 * DNAT destination, an endpoint's comment) costs one map entry whose key is a word the value
 * already holds. The sequence decodes unambiguously because an option's name fixes how many
 * arguments follow it.
 *
 * Rules of one kind differ only in their last word (the comment, the DNAT destination), so each
 * owner remembers the node its last key reached before that word: a key that matches the last
 * one up to there goes straight to that node's values, and the same key again (consecutive
 * rules of one service share their comment) to the same value.
 *
 * A node whose values are nearly all different (every endpoint's DNAT destination) stops
 * caching after `adaptAfter` lookups: there the map only costs time and memory.
 */
import type { IPFamily } from "../../net/index.js";
import type { Negatable } from "../model.js";
import type { ParsedOption } from "../matches/extension.js";

interface Node {
  next?: Map<string, Node>;
  /** Values whose key sequence ends with the map's key after this node. */
  values?: Map<string, unknown>;
  /** Lookups of values here, and how many found one. */
  looked?: number;
  found?: number;
  /** Stopped caching: fewer than one lookup in 8 found a value. */
  off?: boolean;
}

/** The last key looked up under a root. */
interface LastKey {
  readonly family: IPFamily;
  readonly protocol: Negatable<string> | undefined;
  readonly options: readonly ParsedOption[];
  /** The node the key reached before its last word. */
  readonly node: Node;
  /** The key's last word, and its value if it has one. */
  word: string;
  value: unknown;
}

/** An owner's trie. */
interface Root extends Node {
  last?: LastKey;
}

/** The last word of the key (see `lookup`). */
function lastWord(
  family: IPFamily,
  protocol: Negatable<string> | undefined,
  options: readonly ParsedOption[],
): string {
  const o = options[options.length - 1];
  if (o === undefined) return protocol === undefined ? family : protocolToken(protocol);
  return o.args.length === 0 ? o.name : (o.args[o.args.length - 1] as string);
}

/** Whether two option lists make keys with the same words, the last one aside. */
function sameButLast(a: readonly ParsedOption[], b: readonly ParsedOption[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as ParsedOption;
    const y = b[i] as ParsedOption;
    if (x.negated !== y.negated || x.name !== y.name || x.args.length !== y.args.length)
      return false;
    // The last option's last argument is the last word.
    const n = i === a.length - 1 ? x.args.length - 1 : x.args.length;
    for (let j = 0; j < n; j++) if (x.args[j] !== y.args[j]) return false;
  }
  return true;
}

const protocolTokens = new Map<string, string>();

/** `-p` as one key word: "tcp", "!tcp" (kept per value: there are at most a few hundred). */
function protocolToken(p: Negatable<string>): string {
  if (!p.negated) return p.value;
  let t = protocolTokens.get(p.value);
  if (t === undefined) protocolTokens.set(p.value, (t = `!${p.value}`));
  return t;
}

export class BuildCache {
  #roots = new Map<object, Root>();
  #size = 0;
  #node: Node = {};
  #pending = "";
  /** The key of the last lookup (to note the value `store` files under it). */
  #last: LastKey | undefined;

  /**
   * At most `limit` values; a node stops caching after `adaptAfter` lookups if fewer than one in
   * 8 found a value.
   */
  constructor(
    private readonly limit: number,
    private readonly adaptAfter = 4096,
  ) {}

  /** The value under `word` after `node`, counting the lookup. */
  #get(node: Node, word: string): unknown {
    if (node.off === true) return undefined;
    const value = node.values?.get(word);
    const looked = (node.looked ?? 0) + 1;
    node.looked = looked;
    if (value !== undefined) node.found = (node.found ?? 0) + 1;
    if (looked === this.adaptAfter && (node.found ?? 0) * 8 < looked) {
      node.off = true;
      delete node.values;
    }
    return value;
  }

  #step(token: string): void {
    const node = this.#node;
    let next = node.next?.get(this.#pending);
    if (next === undefined) {
      next = {};
      (node.next ??= new Map()).set(this.#pending, next);
    }
    this.#node = next;
    this.#pending = token;
  }

  /**
   * Positions the cache on the key for `owner` built with `options` in this environment and
   * returns the cached value, if any; `store` then files a value under the same key.
   */
  lookup(
    owner: object,
    family: IPFamily,
    protocol: Negatable<string> | undefined,
    options: readonly ParsedOption[],
  ): unknown {
    let root = this.#roots.get(owner);
    if (root === undefined) this.#roots.set(owner, (root = {}));
    const last = root.last;
    if (
      last !== undefined &&
      last.family === family &&
      last.protocol === protocol &&
      sameButLast(last.options, options)
    ) {
      const word = lastWord(family, protocol, options);
      this.#node = last.node;
      this.#pending = word;
      this.#last = last;
      // The same key again (consecutive rules of one service share their comment).
      if (word === last.word && last.value !== undefined) return last.value;
      last.word = word;
      last.value = this.#get(last.node, word);
      return last.value;
    }
    this.#node = root;
    this.#pending = family;
    if (protocol !== undefined) this.#step(protocolToken(protocol));
    for (const o of options) {
      if (o.negated) this.#step("!");
      this.#step(o.name);
      for (const a of o.args) this.#step(a);
    }
    const value = this.#get(this.#node, this.#pending);
    root.last = { family, protocol, options, node: this.#node, word: this.#pending, value };
    this.#last = root.last;
    return value;
  }

  /** Files `value` under the key of the last `lookup`. */
  store(value: unknown): void {
    if (this.#size >= this.limit) {
      // Bounded: the cache outlives a parse. Start over (entries are only an optimisation).
      this.#roots = new Map();
      this.#size = 0;
      this.#last = undefined;
      return;
    }
    if (this.#last !== undefined) this.#last.value = value;
    if (this.#node.off === true) return;
    (this.#node.values ??= new Map()).set(this.#pending, value);
    this.#size++;
  }
}
