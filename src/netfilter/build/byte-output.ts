/**
 * Text handed out as UTF-8 bytes through one reused buffer: a writer that prints tens of MB
 * (an nftables Dump) maps one buffer, not the whole text. Each piece handed to `write` is
 * written over once the call returns (a caller that keeps it copies it).
 */
const SIZE = 1 << 20;

export class ByteOutput {
  readonly #buffer: Uint8Array;
  #at = 0;

  constructor(
    private readonly write: (bytes: Uint8Array) => void,
    size = SIZE,
  ) {
    this.#buffer = new Uint8Array(size);
  }

  /** Appends `text` (ASCII copied byte by byte; anything else encoded as UTF-8). */
  text(s: string): void {
    const n = s.length;
    if (this.#buffer.length - this.#at < n) {
      this.flush();
      if (n > this.#buffer.length) {
        this.write(Buffer.from(s, "utf8"));
        return;
      }
    }
    const buffer = this.#buffer;
    let at = this.#at;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) {
        const bytes = Buffer.from(s, "utf8");
        this.bytes(bytes, 0, bytes.length);
        return;
      }
      buffer[at++] = c;
    }
    this.#at = at;
  }

  /** Appends one byte (an ASCII code). */
  byte(c: number): void {
    if (this.#at === this.#buffer.length) this.flush();
    this.#buffer[this.#at++] = c;
  }

  /** Appends `source[from, to)`. */
  bytes(source: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.#buffer.length - this.#at < n) {
      this.flush();
      if (n > this.#buffer.length) {
        this.write(source.subarray(from, to));
        return;
      }
    }
    // Byte by byte: most pieces are a name or a rule (tens of bytes), where a view for `set`
    // would cost an object each.
    if (n > 24) {
      this.#buffer.set(source.subarray(from, to), this.#at);
      this.#at += n;
      return;
    }
    const buffer = this.#buffer;
    let at = this.#at;
    for (let i = from; i < to; i++) buffer[at++] = source[i] as number;
    this.#at = at;
  }

  /** Hands what is buffered to `write`. */
  flush(): void {
    if (this.#at === 0) return;
    this.write(this.#buffer.subarray(0, this.#at));
    this.#at = 0;
  }
}
