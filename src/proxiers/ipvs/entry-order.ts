/**
 * The order kube-proxy adds a set's entries in: by their text, digit runs compared as numbers
 * (an `Intl.Collator` with `numeric`, as sync.ts always sorted them). The collator is exact but
 * slow (~1 µs a comparison; 40,000 hairpin entries of 10,000 services × 10 endpoints took
 * ~0.4 s to sort), so two texts that both begin with a canonical IPv4 address (`a.b.c.d`, no
 * leading zeros, then a non-digit or the end) and whose addresses differ are ordered by the
 * address as a number: the collator's first difference is then in those four digit runs, which
 * it compares by value, so the answer is the collator's (a property test compares the two).
 * Every other pair is asked of the collator.
 */

// Made at first use: an Intl.Collator loads ICU's collation data, which every CLI start paid
// for at module load.
let collator: Intl.Collator | undefined;

export function numericCompare(a: string, b: string): number {
  return (collator ??= new Intl.Collator("en", { numeric: true })).compare(a, b);
}

/** The value of the canonical IPv4 address `text` begins with, or -1. */
export function leadingIPv4(text: string): number {
  let value = 0;
  let at = 0;
  for (let part = 0; part < 4; part++) {
    if (part > 0) {
      if (text.charCodeAt(at) !== 0x2e) return -1;
      at++;
    }
    const start = at;
    let n = 0;
    for (let c = text.charCodeAt(at); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++at))
      n = n * 10 + (c - 0x30);
    const digits = at - start;
    if (digits === 0 || digits > 3 || n > 255 || (digits > 1 && text.charCodeAt(start) === 0x30))
      return -1;
    value = value * 256 + n;
  }
  return value;
}

/** `values` (each with its text in `texts`, same index) in the collator's order of the texts. */
export function inEntryTextOrder<T>(texts: readonly string[], values: readonly T[]): T[] {
  const keys = texts.map(leadingIPv4);
  const order = texts.map((_, i) => i);
  // Stable, as the plain collator sort over the same (insertion) order.
  order.sort((i, j) => {
    const a = keys[i] as number;
    const b = keys[j] as number;
    if (a >= 0 && b >= 0 && a !== b) return a - b;
    return numericCompare(texts[i] as string, texts[j] as string);
  });
  return order.map((i) => values[i] as T);
}
