/**
 * Text kept as UTF-8 bytes in chunks, written a word at a time: how a table builder keeps the
 * restore lines a generator writes (rule-set-builder.ts).
 *
 * A large rule set's text (10,000 services × 10 endpoints is ~31 MB in ~320,000 lines) lives
 * outside the JavaScript heap this way: no string per word, per line or per batch survives to
 * be copied by the garbage collector, and the text reaches stdout without being made a string
 * and encoded again (bench/render-iptables.ts measured each of those as a large share of
 * `render iptables`). Words are copied byte by byte (restore text is almost always ASCII: one
 * byte per character); a word with other characters is encoded by Buffer (UTF-8, a lone
 * surrogate as U+FFFD, as writing the string to stdout would).
 *
 * Writing may be undone back to a mark (`truncate`): a rule that is started but never finished
 * leaves nothing behind.
 */

/**
 * Bytes per chunk: the first is small (a hostport rule, a test's few lines), each next one twice
 * the last up to 1 MiB, large enough that chunk bookkeeping is negligible.
 */
const FIRST_CHUNK = 1 << 10;
const MAX_CHUNK = 1 << 20;

/**
 * Where written text goes when it leaves memory (`Utf8Chunks.spillTo`): the caller's store, a
 * temporary file for the CLI. A large rule set's text is kept there until it is printed, so the
 * process does not map tens of MB of fresh memory for it (each new page costs a page fault, and
 * on a virtual machine that costs as much as writing the text several times; see
 * bench/render-iptables.ts).
 */
export interface SpilledText {
  /** Keeps `bytes`: a view of memory that is written over once the call returns. */
  append(bytes: Uint8Array): void;
  /**
   * Hands everything appended back to `write`, in order, in pieces; each piece may be written
   * over once the call returns. May be called again.
   */
  replay(write: (bytes: Uint8Array) => void): void;
}

export class Utf8Chunks {
  /** Full chunks, each cut to the bytes written in it. */
  readonly #full: Uint8Array[] = [];
  /** Where each full chunk starts in the text (byte offset). */
  readonly #starts: number[] = [];
  /** Bytes in #full. */
  #fullBytes = 0;
  #chunk: Uint8Array = new Uint8Array(0);
  #at = 0;
  #ascii = true;
  /** Bytes handed to a SpilledText (`spillTo`): they come before those held here. */
  #spilled = 0;

  /** @param what names the text in errors ("a rule in nat"). */
  constructor(private readonly what: string) {}

  /** Bytes written (spilled ones included). */
  get length(): number {
    return this.#spilled + this.#fullBytes + this.#at;
  }

  /** Bytes written and spilled (`spillTo`): they are no longer here. */
  get spilled(): number {
    return this.#spilled;
  }

  /** Bytes held in memory. */
  get held(): number {
    return this.#fullBytes + this.#at;
  }

  /** Bytes that still fit in the current chunk. */
  get room(): number {
    return this.#chunk.length - this.#at;
  }

  /**
   * Hands every byte held to `store` and keeps the current chunk (emptied) for what comes next:
   * once the chunks have grown, text written and spilled over and over maps no new memory.
   * Spilled bytes are not read back here (`pieces`, `text` and `startsWith` see only what is
   * held) and cannot be truncated.
   */
  spillTo(store: SpilledText): void {
    for (const p of this.#full) store.append(p);
    if (this.#at > 0) store.append(this.#chunk.subarray(0, this.#at));
    this.#spilled += this.#fullBytes + this.#at;
    this.#full.length = 0;
    this.#starts.length = 0;
    this.#fullBytes = 0;
    this.#at = 0;
  }

  /** Every character written was ASCII (so byte offsets are character offsets). */
  get ascii(): boolean {
    return this.#ascii;
  }

  /** Appends `text`, which must hold no newline (a line ends only through `newline`). */
  write(text: string): void {
    const n = text.length;
    if (this.#chunk.length - this.#at < n) this.#next(n);
    const chunk = this.#chunk;
    let at = this.#at;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f || c === 10) {
        this.#writeEncoded(text);
        return;
      }
      chunk[at++] = c;
    }
    this.#at = at;
  }

  /** Appends `String(n)`; a port (an integer 0–99,999) is written without making a string. */
  writeNumber(n: number): void {
    if (!(n >= 0 && n < 100000 && Number.isInteger(n))) {
      this.write(String(n));
      return;
    }
    const digits = n >= 10000 ? 5 : n >= 1000 ? 4 : n >= 100 ? 3 : n >= 10 ? 2 : 1;
    if (this.#chunk.length - this.#at < digits) this.#next(digits);
    const chunk = this.#chunk;
    const start = this.#at;
    for (let i = start + digits - 1, v = n; i >= start; i--, v = (v / 10) | 0) {
      chunk[i] = 48 + (v % 10);
    }
    this.#at = start + digits;
  }

  /** Ends a line. */
  newline(): void {
    if (this.#at === this.#chunk.length) this.#next(1);
    this.#chunk[this.#at++] = 10;
  }

  /** A word with a newline (refused) or characters beyond ASCII (encoded as UTF-8). */
  #writeEncoded(text: string): void {
    if (text.includes("\n")) throw new Error(`${this.what} holds a newline: ${text}`);
    const bytes = Buffer.from(text, "utf8");
    if (this.#chunk.length - this.#at < bytes.length) this.#next(bytes.length);
    this.#chunk.set(bytes, this.#at);
    this.#at += bytes.length;
    this.#ascii = false;
  }

  /** Starts a chunk with room for `n` bytes. */
  #next(n: number): void {
    if (this.#at > 0) {
      this.#full.push(this.#chunk.subarray(0, this.#at));
      this.#starts.push(this.#fullBytes);
      this.#fullBytes += this.#at;
    }
    const size = Math.min(MAX_CHUNK, Math.max(FIRST_CHUNK, this.#chunk.length * 2));
    this.#chunk = new Uint8Array(Math.max(size, n));
    this.#at = 0;
  }

  /** Drops what was written after the first `length` bytes. */
  truncate(length: number): void {
    if (length < this.#spilled) throw new Error(`${this.what}: truncated into spilled text`);
    length -= this.#spilled;
    while (length < this.#fullBytes) {
      const last = this.#full.pop() as Uint8Array;
      this.#starts.pop();
      this.#fullBytes -= last.length;
      this.#chunk = new Uint8Array(Math.max(this.#chunk.length, last.length));
      this.#chunk.set(last);
      this.#at = last.length;
    }
    if (length - this.#fullBytes < this.#at) this.#at = length - this.#fullBytes;
  }

  /**
   * The bytes from offset `at` on begin with `text`'s UTF-8 (and do not end before it does),
   * followed by the byte `then` when one is given (an ASCII code: the word's end).
   */
  startsWith(at: number, text: string, then = -1): boolean {
    if (at < this.#spilled && at >= 0)
      throw new Error(`${this.what}: spilled text is not read back`);
    at -= this.#spilled;
    if (at < 0 || at > this.held) return false;
    // The chunk holding byte `at`: the current one, or the last full one starting at or before it.
    let k = this.#full.length;
    let piece = this.#chunk;
    let end = this.#at;
    let offset = at - this.#fullBytes;
    if (offset < 0) {
      let lo = 0;
      let hi = this.#full.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((this.#starts[mid] as number) <= at) lo = mid;
        else hi = mid - 1;
      }
      k = lo;
      piece = this.#full[k] as Uint8Array;
      end = piece.length;
      offset = at - (this.#starts[k] as number);
    }
    const n = then < 0 ? text.length : text.length + 1;
    for (let i = 0; i < n; i++) {
      const c = i < text.length ? text.charCodeAt(i) : then;
      if (c > 0x7f) return this.#startsWithEncoded(at, text, then);
      while (offset === end) {
        if (++k > this.#full.length) return false;
        piece = k < this.#full.length ? (this.#full[k] as Uint8Array) : this.#chunk;
        end = k < this.#full.length ? piece.length : this.#at;
        offset = 0;
      }
      if (piece[offset++] !== c) return false;
    }
    return true;
  }

  /** startsWith for a text with characters beyond ASCII: compares its UTF-8 bytes. */
  #startsWithEncoded(at: number, text: string, then: number): boolean {
    const bytes = Buffer.from(text, "utf8");
    const end = at + bytes.length;
    if (end + (then < 0 ? 0 : 1) > this.held) return false;
    const all = Buffer.concat(this.pieces(), end + (then < 0 ? 0 : 1));
    return all.subarray(at, end).equals(bytes) && (then < 0 || all[end] === then);
  }

  /**
   * The bytes held (written and not spilled), in order, in pieces (views of the chunks: read
   * them before writing more).
   */
  pieces(): Uint8Array[] {
    return this.#at === 0 ? [...this.#full] : [...this.#full, this.#chunk.subarray(0, this.#at)];
  }

  /** The text of the first `length` bytes held (all of them by default). */
  text(length = this.held): string {
    const all = Buffer.concat(this.pieces(), length);
    return all.toString(this.#ascii ? "latin1" : "utf8");
  }
}
