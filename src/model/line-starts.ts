/**
 * Offsets → 1-based line numbers of one text, counting `\n` as `yaml`'s LineCounter does.
 * Built on first use: loading a valid file never needs it (nor, given as a function, the text).
 * Given the text's bytes (ASCII, so that byte offsets are character offsets), it counts in them
 * and never needs the text: a position in a large file then costs one pass over its bytes, not
 * decoding them and a search per line.
 */
export class LineStarts {
  private starts: number[] | undefined;
  constructor(private readonly source: string | Uint8Array | (() => string)) {}

  private index(): number[] {
    if (this.starts !== undefined) return this.starts;
    const source = this.source;
    const starts = [0];
    if (source instanceof Uint8Array) {
      for (let i = 0; i < source.length; i++) if (source[i] === 0x0a) starts.push(i + 1);
    } else {
      const text = typeof source === "string" ? source : source();
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
    }
    this.starts = starts;
    return starts;
  }

  /** The 0-based index of the line holding `offset`. */
  private lineIndex(offset: number): number {
    const starts = this.index();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The offset where the line holding `offset` starts. */
  lineStart(offset: number): number {
    return this.index()[this.lineIndex(offset)]!;
  }

  /** 1-based line and column of `offset`. */
  position(offset: number): { line: number; col: number } {
    const i = this.lineIndex(offset);
    return { line: i + 1, col: offset - this.index()[i]! + 1 };
  }
}
