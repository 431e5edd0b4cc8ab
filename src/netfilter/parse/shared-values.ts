/**
 * Values shared by the text that made them (`-s`/`-d` addresses, a rule shape's values),
 * bounded as it outlives a parse. Like a build-cache node, it stops caching after `adaptAfter`
 * lookups if fewer than one in 8 found a value (every endpoint chain's `-s` address is
 * different): there a map only costs time and memory. The last key is remembered apart from
 * the map, map or no map: rules alike follow each other (a service's chains share a comment), and
 * comparing with one string is cheaper than a lookup in a large map. Sharing is an optimisation
 * only; a value made again is equal.
 */
export class SharedValues<V> {
  #map = new Map<string, V>();
  #looked = 0;
  #found = 0;
  #off = false;
  #lastKey: string | undefined;
  #lastValue: V | undefined;

  constructor(
    private readonly limit: number,
    private readonly adaptAfter = 4096,
  ) {}

  get(key: string): V | undefined {
    if (key === this.#lastKey) return this.#lastValue;
    if (this.#off) return undefined;
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#found++;
      this.#lastKey = key;
      this.#lastValue = v;
    }
    if (++this.#looked === this.adaptAfter && this.#found * 8 < this.#looked) {
      this.#off = true;
      this.#map = new Map();
    }
    return v;
  }

  set(key: string, value: V): void {
    this.#lastKey = key;
    this.#lastValue = value;
    if (this.#off) return;
    if (this.#map.size >= this.limit) this.#map = new Map();
    else this.#map.set(key, value);
  }
}
