/**
 * The statistic-match probability kube-proxy prints: Go's `fmt.Sprintf("%0.10f", 1.0/float64(n))`.
 * Go rounds the exact binary value of the float64 to 10 decimals, half to even; JavaScript's
 * toFixed does not (1/2048 → "0.0004882813" instead of Go's "0.0004882812"), so the float is
 * decomposed and rounded exactly with BigInt.
 */

const SCALE = 10n ** 10n;

/** Exact numerator/denominator (a power of two) of a finite positive double. */
function exactRational(x: number): { num: bigint; den: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exponent = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (exponent === 0) {
    e = -1074;
  } else {
    mantissa |= 1n << 52n;
    e = exponent - 1075;
  }
  return e >= 0
    ? { num: mantissa << BigInt(e), den: 1n }
    : { num: mantissa, den: 1n << BigInt(-e) };
}

/** `%0.10f` of a non-negative double, as Go prints it. */
export function formatFixed10(x: number): string {
  const { num, den } = exactRational(x);
  const scaled = num * SCALE;
  let q = scaled / den;
  const twiceRem = (scaled % den) * 2n;
  if (twiceRem > den || (twiceRem === den && q % 2n === 1n)) q += 1n;
  const intPart = q / SCALE;
  const frac = (q % SCALE).toString().padStart(10, "0");
  return `${intPart}.${frac}`;
}

/** The probability of the i-th of n endpoint rules: 1/(n-i). */
export function endpointProbability(remaining: number): string {
  let p = cache[remaining];
  if (p === undefined) {
    p = formatFixed10(1 / remaining);
    if (remaining < CACHE_SIZE) cache[remaining] = p;
  }
  return p;
}

// Like kube-proxy's precomputedProbabilities: the same few strings are printed over and over.
const CACHE_SIZE = 4096;
const cache: (string | undefined)[] = [];
