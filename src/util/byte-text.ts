/**
 * Text that keeps every byte of its input. Rules files are bytes to iptables (a comment holds
 * whatever bytes it was given, and iptables-save prints them back raw), while a JavaScript
 * string decoded as UTF-8 turns each invalid byte into U+FFFD. Here valid UTF-8 decodes as
 * usual, and each byte that is not part of a valid sequence becomes the lone surrogate
 * U+DC80..U+DCFF of its value (Python's "surrogateescape"); encoding maps those back to the
 * byte. Valid input gives exactly the string `toString("utf8")` gives, so nothing downstream
 * changes for it; a lone surrogate never comes out of a valid UTF-8 decoding.
 */

const ESCAPE_BASE = 0xdc00;

/** Length of the valid UTF-8 sequence at `i`, or 0 if the byte there starts none (RFC 3629). */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean =>
    i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** `bytes` as text, invalid UTF-8 bytes kept as U+DC80..U+DCFF. */
export function decodeKeepingBytes(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString("utf8");
  // No U+FFFD at all: the input was valid (the common case, one scan).
  if (!text.includes("\uFFFD")) return text;
  let out = "";
  let runStart = 0;
  let i = 0;
  while (i < buf.length) {
    const n = sequenceLength(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += buf.toString("utf8", runStart, i) + String.fromCharCode(ESCAPE_BASE + buf[i]!);
    i++;
    runStart = i;
  }
  return out + buf.toString("utf8", runStart, buf.length);
}

/** A lone low surrogate U+DC80..U+DCFF: a kept byte (one after a high surrogate is a character). */
const KEPT_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/** The bytes of `text` as UTF-8, kept bytes (decodeKeepingBytes) written back as themselves. */
export function encodeKeepingBytes(text: string): Buffer {
  KEPT_BYTE.lastIndex = 0;
  if (!KEPT_BYTE.test(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let last = 0;
  KEPT_BYTE.lastIndex = 0;
  for (const m of text.matchAll(KEPT_BYTE)) {
    parts.push(Buffer.from(text.slice(last, m.index), "utf8"));
    parts.push(Buffer.of(m[0].charCodeAt(0) - ESCAPE_BASE));
    last = m.index + 1;
  }
  parts.push(Buffer.from(text.slice(last), "utf8"));
  return Buffer.concat(parts);
}

/** How many bytes `text` has once encoded by encodeKeepingBytes. */
export function keptByteLength(text: string): number {
  return encodeKeepingBytes(text).length;
}
