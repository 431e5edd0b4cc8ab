/**
 * The destination index of a chain (chain-index.ts) as numbers, for the depth-first walk's
 * IPv4 packets: an open-addressed hash table from the IPv4 destination to its candidate list,
 * all lists in one typed array. Made once per chain when the layout is made (dense-rules.ts),
 * every list merged then (not per destination on first use).
 *
 * Why: KUBE-SERVICES's index is a Map of 10,000 entries whose keys are heap numbers (cluster
 * IPs above 2^31), each pointing to an array; a new connection to a random service loads a
 * bucket, the key's number, the entry and the list's array, each a cache miss. Here it is a
 * probe of a table of pairs of numbers and one list, two lines.
 *
 * The lists are `candidateRules`'s for a chain without port-keyed rules: the rules with that
 * host destination merged in rule order with the "always" rules, or the "always" rules alone for
 * a destination no rule names. A chain with port-keyed rules has no table (the walk asks
 * `candidateRules`).
 */
import { mergeSorted, type DestinationIndex } from "./chain-index.js";

export interface DestinationTable {
  /** Slot count minus one (a power of two minus one). */
  readonly mask: number;
  /** Per slot: the IPv4 address, and the offset of its list in `lists` (-1: empty slot). */
  readonly slots: Int32Array;
  /** Lists one after another, each its length then the rule positions in order. */
  readonly lists: Int32Array;
  /** The offset of the "always" rules' list. */
  readonly always: number;
}

/** The slot to look at first for an IPv4 address (a multiplicative hash). */
function home(value: number, mask: number): number {
  return (Math.imul(value, 0x9e3779b1) >>> 16) & mask;
}

/** The table of an index, or undefined when it has port-keyed rules or IPv6 keys only. */
export function destinationTable(index: DestinationIndex): DestinationTable | undefined {
  if (index.ports.size > 0) return undefined;
  const keys: number[] = [];
  for (const k of index.buckets.keys()) if (typeof k === "number") keys.push(k);
  let size = 8;
  while (size < keys.length * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(2 * size).fill(-1);
  const flat: number[] = [index.always.length, ...index.always];
  for (const key of keys) {
    const list = mergeSorted(index.buckets.get(key)!, index.always);
    let s = home(key, mask);
    while (slots[2 * s + 1] !== -1) s = (s + 1) & mask;
    slots[2 * s] = key;
    slots[2 * s + 1] = flat.length;
    flat.push(list.length, ...list);
  }
  return { mask, slots, lists: Int32Array.from(flat), always: 0 };
}

/** The offset in `t.lists` of the candidate list for IPv4 destination `value`. */
export function candidateList(t: DestinationTable, value: number): number {
  const slots = t.slots;
  const key = value | 0;
  for (let s = home(value, t.mask); ; s = (s + 1) & t.mask) {
    const at = slots[2 * s + 1]!;
    if (at === -1) return t.always;
    if (slots[2 * s] === key) return at;
  }
}
