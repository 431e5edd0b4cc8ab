/**
 * The strings of a UTF-8 text's byte ranges, short ones shared: a manifest repeats its keys
 * (`name`, `port`) and many values (`TCP`, `v1`, a node name) thousands of times, and a string
 * per occurrence is memory the garbage collector copies and then keeps. A direct-mapped cache
 * (one slot per hash of the length and three bytes) answers a repeat with the string it made the
 * first time, comparing in place (no allocation); a miss decodes the bytes, and takes the slot
 * when they are ASCII (so that a cached string's characters are its bytes).
 */

/**
 * Longer strings are decoded every time: they repeat less, and comparing costs more. 40 holds
 * the common long keys (`kubernetes.io/service-name`, 26).
 */
const MAX_LENGTH = 40;
const SLOTS = 4096;

/** Node's own Buffer decoding, which `Buffer.prototype.toString` wraps (one call less). */
interface Utf8Slicer {
  utf8Slice(from: number, to: number): string;
}

export class StringCache {
  private readonly slots: (string | undefined)[] = new Array<string | undefined>(SLOTS);
  private readonly decoder: Utf8Slicer;
  constructor(private readonly bytes: Uint8Array) {
    this.decoder = (Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)) as unknown as Utf8Slicer;
  }

  /** The text of `bytes[from, to)` (UTF-8), from the cache when it holds it. */
  slice(from: number, to: number): string {
    const n = to - from;
    if (n > MAX_LENGTH || n <= 0) return n <= 0 ? "" : this.decode(from, to);
    const b = this.bytes;
    const h = (n * 31 + b[from]! * 7 + b[to - 1]! * 13 + b[from + (n >> 1)]!) & (SLOTS - 1);
    const cached = this.slots[h];
    if (cached !== undefined && cached.length === n && same(cached, b, from)) return cached;
    const s = this.decode(from, to);
    if (s.length === n) this.slots[h] = s;
    return s;
  }

  /**
   * The text of `bytes[from, to)`: a short ASCII one made in JavaScript (a call into Node's
   * decoder costs several times what String.fromCharCode does for an IP address or a name).
   */
  private decode(from: number, to: number): string {
    const n = to - from;
    if (n <= SHORT) {
      const b = this.bytes;
      let any = 0;
      for (let i = from; i < to; i++) any |= b[i]!;
      if (any < 0x80) return shortAscii(b, from, n);
    }
    return this.decoder.utf8Slice(from, to);
  }
}

/** The longest text shortAscii makes. */
const SHORT = MAX_LENGTH;

/** For each length up to SHORT, an array of that length to pass the character codes in. */
const CODES: number[][] = Array.from({ length: SHORT + 1 }, (_, n) => new Array<number>(n).fill(0));

/** The ASCII text of `b[from, from + n)`, n <= SHORT (no allocation but the string). */
function shortAscii(b: Uint8Array, from: number, n: number): string {
  const codes = CODES[n]!;
  for (let i = 0; i < n; i++) codes[i] = b[from + i]!;
  return String.fromCharCode.apply(null, codes);
}

/** Whether `b` holds the characters of the ASCII string `s` from `from` on. */
function same(s: string, b: Uint8Array, from: number): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== b[from + i]) return false;
  return true;
}
