/**
 * The destination index of a chain (chain-index.ts) as numbers, for the depth-first walk's
 * IPv4 packets: an open-addressed hash table from the IPv4 destination to its candidate list,
 * all lists in one typed array. Made once per chain when the layout is made (dense-rules.ts),
 * every list merged then (not per destination on first use).
 *
 * Why: KUBE-SERVICES's index is a Map of 10,000 entries whose keys are heap numbers (cluster
 * IPs above 2^31), each pointing to an array; a new connection to a random service loads a
 * bucket, the key's number, the entry and the list's array, each a cache miss. Here it is a
 * probe of a table of numbers whose slot holds a short list itself (a service's: its rule and
 * the "always" rules), one line and one page; longer lists follow the slots.
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
  /**
   * The slots, then the lists that do not fit in theirs. Slot `s` is SLOT numbers from
   * `SLOT * s`: the IPv4 address, the offset of its list (-1: empty slot), and room for a list
   * of up to SLOT - 3 rules, which is then at `SLOT * s + 2`. A list is its length then the
   * rule positions in order.
   */
  readonly lists: Int32Array;
  /** The offset of the "always" rules' list. */
  readonly always: number;
}

/** Numbers per slot. */
const SLOT = 8;

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
  const slotted = new Int32Array(SLOT * size);
  for (let s = 0; s < size; s++) slotted[SLOT * s + 1] = -1;
  // The longer lists, after the slots: the "always" rules' first.
  const rest: number[] = [index.always.length, ...index.always];
  const end = SLOT * size;
  for (const key of keys) {
    const list = mergeSorted(index.buckets.get(key)!, index.always);
    let s = home(key, mask);
    while (slotted[SLOT * s + 1] !== -1) s = (s + 1) & mask;
    slotted[SLOT * s] = key;
    if (list.length <= SLOT - 3) {
      slotted[SLOT * s + 1] = SLOT * s + 2;
      slotted[SLOT * s + 2] = list.length;
      slotted.set(list, SLOT * s + 3);
    } else {
      slotted[SLOT * s + 1] = end + rest.length;
      rest.push(list.length, ...list);
    }
  }
  const lists = new Int32Array(end + rest.length);
  lists.set(slotted);
  lists.set(rest, end);
  return { mask, lists, always: end };
}

/** The offset in `t.lists` of the candidate list for IPv4 destination `value`. */
export function candidateList(t: DestinationTable, value: number): number {
  const lists = t.lists;
  const key = value | 0;
  for (let s = home(value, t.mask); ; s = (s + 1) & t.mask) {
    const at = lists[SLOT * s + 1]!;
    if (at === -1) return t.always;
    if (lists[SLOT * s] === key) return at;
  }
}
