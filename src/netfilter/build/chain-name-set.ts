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
/**
 * The most names per slot before the table grows (linear probing stays short up to here). A
 * fuller table is smaller: for 10,000 services x 10 endpoints, 2 MiB of slots at 0.6 against
 * 4 MiB at 0.5, and every page of it is a page fault on first touch (see rule-set-builder.ts).
 */
const MAX_LOAD = 0.6;
/** The largest table made at once from a hint (16 MiB of slots); it grows beyond as needed. */
const MAX_PRESIZED = 1 << 21;
const SPACE = 0x20;

export class ChainNameSet {
  /**
   * Two numbers per slot (one cache line for both): the name's hash, then 1 + the byte offset of
   * the name in the text (0: an empty slot).
   */
  #slots: Int32Array;
  #size = 0;

  /**
   * @param text where the names are written, each followed by a space (declaration lines:
   *   `:NAME - [0:0]`), never truncated.
   * @param expected how many names are likely to come (a hint): the table is made that large at
   *   once instead of growing and rehashing into fresh memory step by step.
   */
  constructor(
    private readonly text: Pick<Utf8Chunks, "startsWith">,
    expected = 0,
  ) {
    let capacity = FIRST_CAPACITY;
    while (capacity * MAX_LOAD < expected && capacity < MAX_PRESIZED) capacity *= 2;
    this.#slots = new Int32Array(2 * capacity);
  }

  get size(): number {
    return this.#size;
  }

  has(name: string): boolean {
    return this.hasHashed(name, hashName(name));
  }

  /** `has(name)`, `h` being `hashOf(name)` (a caller that adds it next hashes it once). */
  hasHashed(name: string, h: number): boolean {
    return this.findHashed(name, h) >= 0;
  }

  /** Where `name` is written (the byte offset `add` was given), or -1 when it was not added. */
  find(name: string): number {
    return this.findHashed(name, hashName(name));
  }

  /** `find(name)`, `h` being `hashOf(name)`. */
  findHashed(name: string, h: number): number {
    const slots = this.#slots;
    const mask = (slots.length >> 1) - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = slots[2 * i + 1] as number;
      if (at === 0) return -1;
      // The name, then the space its declaration line goes on with (not a longer name).
      if (slots[2 * i] === h && this.text.startsWith(at - 1, name, SPACE)) return at - 1;
    }
  }

  /** Adds `name`, written in the text at byte offset `at` (the caller knows it is new). */
  add(name: string, at: number): void {
    this.addHashed(hashName(name), at);
  }

  /** `add(name, at)`, `h` being `hashOf(name)`. */
  addHashed(h: number, at: number): void {
    if (at + 1 > 0x7fffffff) throw new Error("declarations beyond 2 GiB");
    if (this.#size + 1 > (this.#slots.length >> 1) * MAX_LOAD) this.#grow();
    this.#insert(h, at + 1);
    this.#size++;
  }

  /** The hash `hasHashed` and `addHashed` take. */
  static hashOf(name: string): number {
    return hashName(name);
  }

  #insert(h: number, at1: number): void {
    const slots = this.#slots;
    const mask = (slots.length >> 1) - 1;
    let i = h & mask;
    while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    slots[2 * i] = h;
    slots[2 * i + 1] = at1;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] !== 0) this.#insert(old[i] as number, old[i + 1] as number);
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
