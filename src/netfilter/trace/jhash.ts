/**
 * The kernel's `jhash2` (include/linux/jhash.h): Bob Jenkins' lookup3 `hashword` over an array
 * of 32-bit words, with the kernel's start value `JHASH_INITVAL + 4 * length + initval`
 * (JHASH_INITVAL = 0xdeadbeef). NAT uses it to pick an address from a range (nat-choice.ts).
 * All arithmetic is on unsigned 32-bit values held in JS numbers.
 */

const JHASH_INITVAL = 0xdeadbeef;

const u32 = (x: number): number => x >>> 0;

function rol32(x: number, k: number): number {
  return u32((x << k) | (x >>> (32 - k)));
}

/** State of the three-word mixer (a, b, c). */
interface Abc {
  a: number;
  b: number;
  c: number;
}

/** lookup3 `mix`: reversible mixing of three words (the kernel's __jhash_mix). */
function mix(s: Abc): void {
  const steps: readonly (readonly ["a" | "b" | "c", "a" | "b" | "c", "a" | "b" | "c", number])[] = [
    ["a", "c", "b", 4],
    ["b", "a", "c", 6],
    ["c", "b", "a", 8],
    ["a", "c", "b", 16],
    ["b", "a", "c", 19],
    ["c", "b", "a", 4],
  ];
  // Each step: x -= y; x ^= rol(y, k); y += z.
  for (const [x, y, z, k] of steps) {
    s[x] = u32(s[x] - s[y]);
    s[x] = u32(s[x] ^ rol32(s[y], k));
    s[y] = u32(s[y] + s[z]);
  }
}

/** lookup3 `final`: the last mixing, whose result is c (the kernel's __jhash_final). */
function final(s: Abc): void {
  const steps: readonly (readonly ["a" | "b" | "c", "a" | "b" | "c", number])[] = [
    ["c", "b", 14],
    ["a", "c", 11],
    ["b", "a", 25],
    ["c", "b", 16],
    ["a", "c", 4],
    ["b", "a", 14],
    ["c", "b", 24],
  ];
  // Each step: x ^= y; x -= rol(y, k).
  for (const [x, y, k] of steps) {
    s[x] = u32(s[x] ^ s[y]);
    s[x] = u32(s[x] - rol32(s[y], k));
  }
}

/** jhash2(words, words.length, initval): the words are host-order u32 values. */
export function jhash2(words: readonly number[], initval: number): number {
  const start = u32(JHASH_INITVAL + words.length * 4 + initval);
  const s: Abc = { a: start, b: start, c: start };
  let i = 0;
  let left = words.length;
  // Whole blocks of three while more than three words remain; the last one to three words
  // go through `final` (zero words: no final at all).
  while (left > 3) {
    s.a = u32(s.a + (words[i] ?? 0));
    s.b = u32(s.b + (words[i + 1] ?? 0));
    s.c = u32(s.c + (words[i + 2] ?? 0));
    mix(s);
    i += 3;
    left -= 3;
  }
  if (left === 0) return s.c;
  if (left >= 3) s.c = u32(s.c + (words[i + 2] ?? 0));
  if (left >= 2) s.b = u32(s.b + (words[i + 1] ?? 0));
  s.a = u32(s.a + (words[i] ?? 0));
  final(s);
  return s.c;
}

/** reciprocal_scale(val, ep_ro) = (val * ep_ro) >> 32 on u64: maps a u32 into [0, ep_ro). */
export function reciprocalScale(val: number, epRo: number): number {
  // Exact in doubles: split val into 16-bit halves so no partial product exceeds 2^48.
  const hi = Math.floor(val / 0x10000);
  const lo = val % 0x10000;
  const a = hi * epRo; // < 2^48; contributes a * 2^16
  const b = lo * epRo; // < 2^48
  const aHi = Math.floor(a / 0x10000);
  const aLo = a % 0x10000;
  return aHi + Math.floor((aLo * 0x10000 + b) / 0x100000000);
}
