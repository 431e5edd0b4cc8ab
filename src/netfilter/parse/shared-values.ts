/**
 * Values shared by the text that made them (`-s`/`-d` addresses), bounded as it outlives a parse.
 * Like a build-cache node, it stops caching after `adaptAfter` lookups if fewer than one in 8
 * found a value (every endpoint chain's `-s` address is different): there a map only costs time
 * and memory. Sharing is an optimisation only; a value made again is equal.
 */
export class SharedValues<V> {
  #map = new Map<string, V>();
  #looked = 0;
  #found = 0;
  #off = false;

  constructor(
    private readonly limit: number,
    private readonly adaptAfter = 4096,
  ) {}

  get(key: string): V | undefined {
    if (this.#off) return undefined;
    const v = this.#map.get(key);
    if (v !== undefined) this.#found++;
    if (++this.#looked === this.adaptAfter && this.#found * 8 < this.#looked) {
      this.#off = true;
      this.#map = new Map();
    }
    return v;
  }

  set(key: string, value: V): void {
    if (this.#off) return;
    if (this.#map.size >= this.limit) this.#map = new Map();
    else this.#map.set(key, value);
  }
}
