/**
 * kube-proxy's chain-name hash: the first 16 characters of the standard (RFC 4648, upper-case,
 * A–Z2–7) base32 encoding of the SHA-256 of the UTF-8 input. Both the iptables and the IPVS
 * proxier name per-service chains with it (spec §3).
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
  // 16 base32 characters are exactly the first 10 bytes of the digest.
  return base32(sha256(input).subarray(0, 10));
}

type OneShotHash = (algorithm: string, data: string, encoding: "buffer") => Buffer;
// crypto.hash (Node >= 20.12) skips the Hash object; fall back to createHash elsewhere.
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;
const sha256 = (input: string): Buffer =>
  oneShot !== undefined
    ? oneShot("sha256", input, "buffer")
    : crypto.createHash("sha256").update(input, "utf8").digest();
