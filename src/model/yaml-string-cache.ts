/**
 * Short strings of a text, shared: a manifest repeats its keys (`name`, `port`) and many values
 * (`TCP`, `v1`, a node name) thousands of times, and a slice per occurrence is memory the
 * garbage collector copies and then keeps. A direct-mapped cache (one slot per hash of the
 * length and three characters) answers a repeat with the string it made the first time,
 * comparing in place (no allocation); a miss slices, and takes the slot.
 */

/** Longer strings are sliced every time: they repeat less, and comparing costs more. */
const MAX_LENGTH = 24;
const SLOTS = 4096;

export class StringCache {
  private readonly slots: (string | undefined)[] = new Array<string | undefined>(SLOTS);
  constructor(private readonly text: string) {}

  /** `text.slice(from, to)`, from the cache when it holds it. */
  slice(from: number, to: number): string {
    const n = to - from;
    if (n > MAX_LENGTH || n <= 0) return this.text.slice(from, to);
    const t = this.text;
    const h =
      (n * 31 +
        t.charCodeAt(from) * 7 +
        t.charCodeAt(to - 1) * 13 +
        t.charCodeAt(from + (n >> 1))) &
      (SLOTS - 1);
    const cached = this.slots[h];
    if (cached !== undefined && cached.length === n && t.startsWith(cached, from)) return cached;
    const s = t.slice(from, to);
    this.slots[h] = s;
    return s;
  }
}
