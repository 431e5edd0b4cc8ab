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
 */
import type { IPFamily } from "../../net/index.js";
import type { Negatable } from "../model.js";
import type { ParsedOption } from "../matches/extension.js";

interface Node {
  next?: Map<string, Node>;
  /** Values whose key sequence ends with the map's key after this node. */
  values?: Map<string, unknown>;
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
  #roots = new Map<object, Node>();
  #size = 0;
  #node: Node = {};
  #pending = "";

  constructor(private readonly limit: number) {}

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
    this.#node = root;
    this.#pending = family;
    if (protocol !== undefined) this.#step(protocolToken(protocol));
    for (const o of options) {
      if (o.negated) this.#step("!");
      this.#step(o.name);
      for (const a of o.args) this.#step(a);
    }
    return this.#node.values?.get(this.#pending);
  }

  /** Files `value` under the key of the last `lookup`. */
  store(value: unknown): void {
    if (this.#size >= this.limit) {
      // Bounded: the cache outlives a parse. Start over (entries are only an optimisation).
      this.#roots = new Map();
      this.#size = 0;
      return;
    }
    (this.#node.values ??= new Map()).set(this.#pending, value);
    this.#size++;
  }
}
