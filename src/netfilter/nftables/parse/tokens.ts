/**
 * Words of nft input as its scanner splits them for the forms kube-proxy and `nft list` use:
 * `{ } ; ,` stand alone, `"..."` is one string token (Go/nft escapes), anything else up to
 * whitespace or one of those is a word (`10.0.0.0/8`, `fd00::1`, `@set`, `[fd00::1]:80`).
 * Every token keeps its 1-based line and column for errors.
 */
import { syntaxIssue } from "../../../issue/issue.js";
import { ValidationError } from "../../../issue/validation-error.js";

export interface Token {
  readonly kind: "word" | "string" | "punct";
  readonly text: string;
  readonly line: number;
  readonly col: number;
}

/** A problem in nft input at a line and column: a `ValidationError` with one `syntax` issue. */
export class NftParseError extends ValidationError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly col: number,
    readonly detail: string,
  ) {
    super([syntaxIssue({ file, line, col }, detail)]);
    this.name = "NftParseError";
  }
}

const PUNCT = new Set(["{", "}", ";", ","]);

export function tokenize(text: string, line: number, startCol: number, file: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      i++;
      continue;
    }
    const col = startCol + i;
    if (PUNCT.has(c)) {
      out.push({ kind: "punct", text: c, line, col });
      i++;
      continue;
    }
    if (c === '"') {
      let s = "";
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && j + 1 < text.length) j++;
        s += text[j];
      }
      if (j >= text.length) throw new NftParseError(file, line, col, "unterminated string");
      out.push({ kind: "string", text: s, line, col });
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < text.length && !/[\s{};,"]/.test(text[j] as string)) j++;
    out.push({ kind: "word", text: text.slice(i, j), line, col });
    i = j;
  }
  return out;
}

/** A cursor over one statement's tokens. */
export class Cursor {
  private i = 0;
  constructor(
    readonly tokens: readonly Token[],
    readonly file: string,
    /** Where errors point when the tokens ran out. */
    readonly end: { readonly line: number; readonly col: number },
  ) {}

  peek(k = 0): Token | undefined {
    return this.tokens[this.i + k];
  }
  peekText(k = 0): string | undefined {
    return this.tokens[this.i + k]?.text;
  }
  done(): boolean {
    return this.i >= this.tokens.length;
  }
  next(what: string): Token {
    const t = this.tokens[this.i];
    if (t === undefined) throw this.errorAtEnd(`expected ${what}, found end of line`);
    this.i++;
    return t;
  }
  accept(text: string): boolean {
    const t = this.tokens[this.i];
    if (t !== undefined && t.kind !== "string" && t.text === text) {
      this.i++;
      return true;
    }
    return false;
  }
  expect(text: string): Token {
    const t = this.next(`"${text}"`);
    if (t.text !== text || t.kind === "string")
      throw this.error(t, `expected "${text}", found "${t.text}"`);
    return t;
  }
  error(t: Token, message: string): NftParseError {
    return new NftParseError(this.file, t.line, t.col, message);
  }
  errorAtEnd(message: string): NftParseError {
    return new NftParseError(this.file, this.end.line, this.end.col, message);
  }
}
