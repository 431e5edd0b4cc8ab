/**
 * The user chains a table builder has declared, as a hash table of where each name is written
 * in the table's declaration lines (rule-set-builder.ts): no string is kept per chain.
 *
 * A large rule set declares a chain per endpoint (130,000 for 10,000 services × 10 endpoints).
 * A `Set` of their names kept every name string alive and grew a large table in the JavaScript
 * heap, which `render iptables` paid for in set operations, garbage collection and fresh memory
 * (measured with bench/render-iptables.ts); here a name costs two 32-bit slots, and a hash hit
 * is confirmed against the written bytes, so the answer is exact.
 */
import type { Utf8Chunks } from "./utf8-chunks.js";

const FIRST_CAPACITY = 1 << 6;

export class ChainNameSet {
  /** Per slot: 1 + the byte offset of the name in the text, or 0 for an empty slot. */
  #at = new Int32Array(FIRST_CAPACITY);
  /** Per slot: the name's hash. */
  #hash = new Int32Array(FIRST_CAPACITY);
  #size = 0;

  /** @param text where the names are written (each as one `write`, never truncated). */
  constructor(private readonly text: Utf8Chunks) {}

  get size(): number {
    return this.#size;
  }

  has(name: string): boolean {
    const h = hashName(name);
    const mask = this.#at.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = this.#at[i] as number;
      if (at === 0) return false;
      if (this.#hash[i] === h && this.text.startsWith(at - 1, name)) return true;
    }
  }

  /** Adds `name`, written in the text at byte offset `at` (the caller knows it is new). */
  add(name: string, at: number): void {
    if (at + 1 > 0x7fffffff) throw new Error("declarations beyond 2 GiB");
    if ((this.#size + 1) * 2 > this.#at.length) this.#grow();
    this.#insert(hashName(name), at + 1);
    this.#size++;
  }

  #insert(h: number, at1: number): void {
    const mask = this.#at.length - 1;
    let i = h & mask;
    while (this.#at[i] !== 0) i = (i + 1) & mask;
    this.#at[i] = at1;
    this.#hash[i] = h;
  }

  #grow(): void {
    const at = this.#at;
    const hash = this.#hash;
    this.#at = new Int32Array(at.length * 2);
    this.#hash = new Int32Array(at.length * 2);
    for (let i = 0; i < at.length; i++) {
      if (at[i] !== 0) this.#insert(hash[i] as number, at[i] as number);
    }
  }
}

/** FNV-1a over the UTF-16 code units, then mixed so that the low bits (the slot) spread. */
function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b);
  return h ^ (h >>> 16);
}
