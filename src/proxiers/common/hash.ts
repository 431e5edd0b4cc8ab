/**
 * kube-proxy's chain-name hash: the first 16 characters of the standard (RFC 4648, upper-case,
 * A–Z2–7) base32 encoding of the SHA-256 of the UTF-8 input. Both the iptables and the IPVS
 * proxier name per-service chains with it (spec §3).
 *
 * A large cluster hashes once per endpoint (100k+ times per render) and every input is a short
 * ASCII string that fits one or two SHA-256 blocks, so SHA-256 is computed here in plain
 * JavaScript on 32-bit integers: faster than a call into node:crypto, which pays for a Buffer
 * and a native transition per hash (measured: ~1.1 µs against ~1.4–2 µs). Other inputs go to
 * node:crypto.
 */
import * as crypto from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** Standard base32 of `bytes`, without padding (callers truncate anyway). */
export function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The 16-character hash suffix of a chain name. */
export function chainHash(input: string): string {
  // 16 base32 characters are exactly the first 80 bits of the digest.
  if (input.length <= MAX_FAST_INPUT && sha256Ascii(input, "", "")) {
    return base32Of80Bits(STATE[0] as number, STATE[1] as number, STATE[2] as number);
  }
  return base32(sha256(input).subarray(0, 10));
}

/**
 * `prefix + chainHash(a + b + c)`, made as one flat string: the hash input is read from its
 * parts, never concatenated. The iptables proxier names a chain per endpoint with it (100,000+
 * per render on a large cluster), so each name is one allocation instead of four (the input,
 * its flattened copy, the hash, the name) and a name kept in a table holds no parts.
 */
export function prefixedChainHash(prefix: string, a: string, b = "", c = ""): string {
  if (a.length + b.length + c.length <= MAX_FAST_INPUT && sha256Ascii(a, b, c)) {
    const w0 = STATE[0] as number;
    const w1 = STATE[1] as number;
    const w2 = STATE[2] as number;
    if (prefix.length === 9) return base32Of80BitsAfter9(prefix, w0, w1, w2);
    return prefix + base32Of80Bits(w0, w1, w2);
  }
  return prefix + base32(sha256(a + b + c).subarray(0, 10));
}

type OneShotHash = (algorithm: string, data: string, encoding: "buffer") => Buffer;
let nativeSha256: ((input: string) => Buffer) | undefined;

/**
 * node:crypto's SHA-256 of the UTF-8 input, looked up at its first use: loading node:crypto
 * costs ~10 ms, and a render whose names are all short ASCII never needs it (the CLI's bundle
 * loads a built-in module when one of its exports is first read).
 */
function sha256(input: string): Buffer {
  if (nativeSha256 === undefined) {
    // crypto.hash (Node >= 20.12) skips the Hash object; fall back to createHash elsewhere.
    const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;
    nativeSha256 =
      oneShot !== undefined
        ? (s) => oneShot("sha256", s, "buffer")
        : (s) => crypto.createHash("sha256").update(s, "utf8").digest();
  }
  return nativeSha256(input);
}

/** Longest input hashed in JavaScript: two blocks (119 bytes + 0x80 + 8 length bytes). */
const MAX_FAST_INPUT = 119;

// FIPS 180-4 §4.2.2 round constants and §5.3.3 initial hash value.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
/** Message words of the padded input (two blocks at most). */
const WORDS = new Int32Array(32);
/** Message schedule of one block. */
const W = new Int32Array(64);
/** Hash state; after sha256Ascii, the digest as big-endian words. */
const STATE = new Int32Array(8);

/**
 * SHA-256 of the ASCII string `a + b + c` (at most MAX_FAST_INPUT characters) into STATE; false
 * (STATE untouched) if it is not ASCII.
 */
function sha256Ascii(a: string, b: string, c: string): boolean {
  WORDS.fill(0);
  let n = 0;
  let word = 0;
  for (let part = 0; part < 3; part++) {
    const s = part === 0 ? a : part === 1 ? b : c;
    for (let i = 0; i < s.length; i++, n++) {
      const ch = s.charCodeAt(i);
      if (ch > 0x7f) return false;
      word = (word << 8) | ch;
      if ((n & 3) === 3) {
        WORDS[n >> 2] = word;
        word = 0;
      }
    }
  }
  // The 0x80 terminator closes the last (partial) big-endian word.
  word = (word << 8) | 0x80;
  WORDS[n >> 2] = word << (8 * (3 - (n & 3)));
  const blocks = n + 9 <= 64 ? 1 : 2;
  WORDS[blocks * 16 - 1] = n * 8;
  STATE.set(H0);
  for (let b = 0; b < blocks; b++) compress(b * 16);
  return true;
}

function compress(offset: number): void {
  for (let t = 0; t < 16; t++) W[t] = WORDS[offset + t] as number;
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15] as number;
    const w2 = W[t - 2] as number;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = ((W[t - 16] as number) + s0 + (W[t - 7] as number) + s1) | 0;
  }
  let a = STATE[0] as number;
  let b = STATE[1] as number;
  let c = STATE[2] as number;
  let d = STATE[3] as number;
  let e = STATE[4] as number;
  let f = STATE[5] as number;
  let g = STATE[6] as number;
  let h = STATE[7] as number;
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + (K[t] as number) + (W[t] as number)) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  STATE[0] = ((STATE[0] as number) + a) | 0;
  STATE[1] = ((STATE[1] as number) + b) | 0;
  STATE[2] = ((STATE[2] as number) + c) | 0;
  STATE[3] = ((STATE[3] as number) + d) | 0;
  STATE[4] = ((STATE[4] as number) + e) | 0;
  STATE[5] = ((STATE[5] as number) + f) | 0;
  STATE[6] = ((STATE[6] as number) + g) | 0;
  STATE[7] = ((STATE[7] as number) + h) | 0;
}

/** base32 of the 80 bits w0 (32) · w1 (32) · top 16 bits of w2: 16 characters. */
function base32Of80Bits(w0: number, w1: number, w2: number): string {
  // Four 20-bit groups of four 5-bit digits each, built as one string (no partial strings).
  const a = w0 >>> 12;
  const b = ((w0 & 0xfff) << 8) | (w1 >>> 24);
  const c = (w1 >>> 4) & 0xfffff;
  const d = ((w1 & 0xf) << 16) | (w2 >>> 16);
  return String.fromCharCode(
    CODES[(a >>> 15) & 31]!,
    CODES[(a >>> 10) & 31]!,
    CODES[(a >>> 5) & 31]!,
    CODES[a & 31]!,
    CODES[(b >>> 15) & 31]!,
    CODES[(b >>> 10) & 31]!,
    CODES[(b >>> 5) & 31]!,
    CODES[b & 31]!,
    CODES[(c >>> 15) & 31]!,
    CODES[(c >>> 10) & 31]!,
    CODES[(c >>> 5) & 31]!,
    CODES[c & 31]!,
    CODES[(d >>> 15) & 31]!,
    CODES[(d >>> 10) & 31]!,
    CODES[(d >>> 5) & 31]!,
    CODES[d & 31]!,
  );
}

/** `prefix` (9 characters: `KUBE-SEP-`) and base32Of80Bits(w0, w1, w2), as one flat string. */
function base32Of80BitsAfter9(prefix: string, w0: number, w1: number, w2: number): string {
  const a = w0 >>> 12;
  const b = ((w0 & 0xfff) << 8) | (w1 >>> 24);
  const c = (w1 >>> 4) & 0xfffff;
  const d = ((w1 & 0xf) << 16) | (w2 >>> 16);
  return String.fromCharCode(
    prefix.charCodeAt(0),
    prefix.charCodeAt(1),
    prefix.charCodeAt(2),
    prefix.charCodeAt(3),
    prefix.charCodeAt(4),
    prefix.charCodeAt(5),
    prefix.charCodeAt(6),
    prefix.charCodeAt(7),
    prefix.charCodeAt(8),
    CODES[(a >>> 15) & 31]!,
    CODES[(a >>> 10) & 31]!,
    CODES[(a >>> 5) & 31]!,
    CODES[a & 31]!,
    CODES[(b >>> 15) & 31]!,
    CODES[(b >>> 10) & 31]!,
    CODES[(b >>> 5) & 31]!,
    CODES[b & 31]!,
    CODES[(c >>> 15) & 31]!,
    CODES[(c >>> 10) & 31]!,
    CODES[(c >>> 5) & 31]!,
    CODES[c & 31]!,
    CODES[(d >>> 15) & 31]!,
    CODES[(d >>> 10) & 31]!,
    CODES[(d >>> 5) & 31]!,
    CODES[d & 31]!,
  );
}

const CODES = Uint8Array.from(ALPHABET, (ch) => ch.charCodeAt(0));
