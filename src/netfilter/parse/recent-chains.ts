/**
 * The last few chains looked up, by name. A dump appends to and jumps to the same few chains
 * line after line (`-A SVC -j SEP`, then `-A SEP ... -j KUBE-MARK-MASQ`, `-A SEP ...`), and
 * comparing a name with a few recent ones is cheaper than a lookup in a map of 100,000 chains.
 * The owner clears it whenever a name may stop naming the chain it remembers (a chain deleted,
 * a new table).
 */
const SIZE = 4;

export class RecentChains<C> {
  /** Most recent first. */
  readonly #names: (string | undefined)[] = new Array<string | undefined>(SIZE).fill(undefined);
  readonly #chains: (C | undefined)[] = new Array<C | undefined>(SIZE).fill(undefined);

  get(name: string): C | undefined {
    const names = this.#names;
    for (let k = 0; k < SIZE; k++)
      if (names[k] === name) {
        const chain = this.#chains[k] as C;
        if (k > 0) this.#toFront(k, name, chain);
        return chain;
      }
    return undefined;
  }

  /** Makes `name` the most recent (the least recent is forgotten if it was not there). */
  remember(name: string, chain: C): void {
    let k = this.#names.indexOf(name);
    if (k === -1) k = SIZE - 1;
    this.#toFront(k, name, chain);
  }

  clear(): void {
    this.#names.fill(undefined);
    this.#chains.fill(undefined);
  }

  #toFront(k: number, name: string, chain: C): void {
    const names = this.#names;
    const chains = this.#chains;
    for (let j = k; j > 0; j--) {
      names[j] = names[j - 1];
      chains[j] = chains[j - 1];
    }
    names[0] = name;
    chains[0] = chain;
  }
}
