/**
 * Texts kept as UTF-8 bytes in chunks, each text (a record) whole in one chunk and found again
 * by its position: how a text-only table writer keeps names and rule bodies that it prints
 * later, in another order (dump-writer.ts). Nothing is kept per record in the JavaScript heap,
 * so a table of 100,000 chains is not copied by the garbage collector (see utf8-chunks.ts for
 * why that matters on this path).
 */
import type { ByteOutput } from "./byte-output.js";

/** Bytes of the first chunk; each next one is twice the last, up to MAX_CHUNK. */
const FIRST_CHUNK = 1 << 12;
const MAX_CHUNK = 1 << 20;
/** A position is chunk × SPAN + offset: a record is at most SPAN bytes, in at most 511 chunks. */
const SPAN = 1 << 22;
const MAX_CHUNKS = 511;

export class ByteRecords {
  readonly #chunks: Uint8Array[] = [];
  #chunk: Uint8Array = new Uint8Array(0);
  #at = 0;
  #ascii = true;

  /** @param what names the texts in errors ("a chain name"). */
  constructor(private readonly what: string) {}

  /** Every character written was ASCII (byte order is then code unit order). */
  get ascii(): boolean {
    return this.#ascii;
  }

  /**
   * Keeps `text` (no newline) and, when `end` is given, the byte `end` after it (not part of the
   * record); returns the record's position. Its length in bytes is `this.lastLength`.
   */
  put(text: string, end = -1): number {
    const n = text.length;
    const extra = end < 0 ? 0 : 1;
    if (this.#chunk.length - this.#at < n + extra || this.#chunks.length === 0)
      this.#next(n + extra);
    const chunk = this.#chunk;
    const start = this.#at;
    let at = start;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f || c === 10) return this.#putEncoded(text, end);
      chunk[at++] = c;
    }
    this.lastLength = n;
    if (end >= 0) chunk[at++] = end;
    this.#at = at;
    return this.#position(start);
  }

  /** The byte length of the record `put` made last. */
  lastLength = 0;

  #putEncoded(text: string, end: number): number {
    if (text.includes("\n")) throw new Error(`${this.what} holds a newline: ${text}`);
    const bytes = Buffer.from(text, "utf8");
    const extra = end < 0 ? 0 : 1;
    if (this.#chunk.length - this.#at < bytes.length + extra) this.#next(bytes.length + extra);
    const start = this.#at;
    this.#chunk.set(bytes, start);
    this.#at = start + bytes.length;
    if (end >= 0) this.#chunk[this.#at++] = end;
    this.#ascii = false;
    this.lastLength = bytes.length;
    return this.#position(start);
  }

  #position(offset: number): number {
    return (this.#chunks.length - 1) * SPAN + offset;
  }

  #next(n: number): void {
    if (n > SPAN) throw new Error(`${this.what} of more than ${SPAN} bytes`);
    if (this.#chunks.length >= MAX_CHUNKS) throw new Error(`${this.what}s beyond 2 GiB`);
    const size = Math.min(MAX_CHUNK, Math.max(FIRST_CHUNK, this.#chunk.length * 2));
    this.#chunk = new Uint8Array(Math.max(size, n));
    this.#chunks.push(this.#chunk);
    this.#at = 0;
  }

  /**
   * The bytes at position `at` begin with `text`'s UTF-8, followed by the byte `then` when one
   * is given (what ChainNameSet asks of its text).
   */
  startsWith(at: number, text: string, then = -1): boolean {
    const chunk = this.#chunks[Math.floor(at / SPAN)];
    if (chunk === undefined) return false;
    let offset = at % SPAN;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) return this.#startsWithEncoded(chunk, at % SPAN, text, then);
      if (offset >= chunk.length || chunk[offset++] !== c) return false;
    }
    return then < 0 || (offset < chunk.length && chunk[offset] === then);
  }

  #startsWithEncoded(chunk: Uint8Array, offset: number, text: string, then: number): boolean {
    const bytes = Buffer.from(text, "utf8");
    const end = offset + bytes.length;
    if (end + (then < 0 ? 0 : 1) > chunk.length) return false;
    return (
      Buffer.from(chunk.buffer, chunk.byteOffset + offset, bytes.length).equals(bytes) &&
      (then < 0 || chunk[end] === then)
    );
  }

  /** Byte order of two records (code unit order of their texts when every one is ASCII). */
  compare(a: number, aLength: number, b: number, bLength: number): number {
    const ca = this.#chunks[Math.floor(a / SPAN)] as Uint8Array;
    const cb = this.#chunks[Math.floor(b / SPAN)] as Uint8Array;
    const oa = a % SPAN;
    const ob = b % SPAN;
    const n = Math.min(aLength, bLength);
    for (let i = 0; i < n; i++) {
      const d = (ca[oa + i] as number) - (cb[ob + i] as number);
      if (d !== 0) return d;
    }
    return aLength - bLength;
  }

  /**
   * Bytes `from` to `from + 6` of the record as one number (big-endian; 0 past its end): two
   * records whose keys at the same offsets differ are in the keys' order (`compare`), so a sort
   * compares numbers first and bytes only on a tie.
   */
  key(at: number, length: number, from: number): number {
    const chunk = this.#chunks[Math.floor(at / SPAN)] as Uint8Array;
    const offset = at % SPAN;
    let k = 0;
    for (let i = from; i < from + 6; i++)
      k = k * 256 + (i < length ? (chunk[offset + i] as number) : 0);
    return k;
  }

  /** The record's text. */
  text(at: number, length: number): string {
    const chunk = this.#chunks[Math.floor(at / SPAN)] as Uint8Array;
    const offset = at % SPAN;
    return Buffer.from(chunk.buffer, chunk.byteOffset + offset, length).toString("utf8");
  }

  /** Copies the record's bytes to `out`. */
  copyTo(out: ByteOutput, at: number, length: number): void {
    const chunk = this.#chunks[Math.floor(at / SPAN)] as Uint8Array;
    const offset = at % SPAN;
    out.bytes(chunk, offset, offset + length);
  }
}
