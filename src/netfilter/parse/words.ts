/**
 * Splitting a restore line into words exactly as iptables-restore's `add_param_to_argv` does:
 * words are separated by spaces and tabs; `"` opens a quoted part in which a backslash escapes
 * the next character and spaces are kept; a closing `"` ends the word (so `""` is an empty word).
 * Outside quotes a backslash is an ordinary character. A quote left open at the end of the line
 * simply ends the last word, as in iptables-restore.
 *
 * Alongside each word we keep its raw text (quotes and escapes as written), which is what the
 * restore formatter prints back for byte-for-byte round trips. Lines without quotes or tabs take
 * a fast path (the words are their own raw text).
 */
export interface SplitLine {
  readonly words: string[];
  readonly raw: string[];
}

const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BACKSLASH = 92;

function splitSpaces(line: string): string[] {
  const parts = line.split(" ");
  if (line.indexOf("  ") === -1 && parts[0] !== "" && parts[parts.length - 1] !== "") return parts;
  return parts.filter((p) => p !== "");
}

/**
 * `splitRestoreWords(line).words` without the raw texts (what the parser reads; the raw words
 * are only split again if a rule's `written` is asked for).
 */
export function splitWords(line: string): string[] {
  if (line.indexOf("\t") === -1) {
    if (line.indexOf('"') === -1) return splitSpaces(line);
    const words = quotedBySpaces(line);
    if (words !== undefined) return words;
  }
  // Tabs, backslashes and quotes inside words are rare: the full scan, raw texts and all.
  return splitRestoreWords(line).words;
}

/**
 * The words of a line whose quotes only wrap whole words (`--comment "a b"`), from its single
 * spaces; undefined for any other line (tabs, backslashes, runs of spaces, a quote inside or
 * after a word, one left open), which `splitRestoreWords` splits.
 */
function quotedBySpaces(line: string): string[] | undefined {
  if (line.indexOf("\\") !== -1 || line.indexOf("  ") !== -1) return undefined;
  const parts = line.split(" ");
  const n = parts.length;
  if (parts[0] === "" || parts[n - 1] === "") return undefined;
  const words: string[] = [];
  // at: where parts[k] starts in line.
  let at = 0;
  for (let k = 0; k < n; k++) {
    const p = parts[k] as string;
    const q = p.indexOf('"');
    if (q === -1) {
      words.push(p);
      at += p.length + 1;
      continue;
    }
    if (q !== 0) return undefined;
    // A quoted word: from this part to the one that ends with the closing quote.
    const start = at + 1;
    let last = p;
    let from = 1;
    while (last.indexOf('"', from) === -1) {
      at += last.length + 1;
      if (++k === n) return undefined;
      last = parts[k] as string;
      from = 0;
    }
    const close = last.indexOf('"', from);
    if (close !== last.length - 1) return undefined;
    at += last.length + 1;
    words.push(line.slice(start, at - 2));
  }
  return words;
}

/** Where the unquoted run of a word that starts at `i` ends: a space, a tab, a quote or the end. */
function plainEnd(line: string, i: number, n: number): number {
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c === SPACE || c === TAB || c === QUOTE) return i;
    i++;
  }
  return n;
}

/**
 * Where a quoted part that starts at `from` (after its opening quote) ends: after its closing
 * quote, or at the end of the line. A backslash takes the next character literally.
 */
function quotedEnd(line: string, from: number, n: number): number {
  let i = from;
  for (;;) {
    const q = line.indexOf('"', i);
    const b = line.indexOf("\\", i);
    if (b !== -1 && (q === -1 || b < q)) {
      i = Math.min(b + 2, n);
      continue;
    }
    return q === -1 ? n : q + 1;
  }
}

/** The text of the quoted part from `from` to `end` (quotedEnd), backslashes applied. */
function unquoted(line: string, from: number, end: number): string {
  let word = "";
  let i = from;
  for (;;) {
    const q = line.indexOf('"', i);
    const b = line.indexOf("\\", i);
    if (b !== -1 && b < end && (q === -1 || b < q)) {
      word += line.slice(i, b) + line.slice(b + 1, b + 2);
      i = b + 2;
      continue;
    }
    return word + line.slice(i, q === -1 || q >= end ? end : q);
  }
}

/**
 * Where word `k` of `line` starts (words counted as `splitRestoreWords` counts them), or
 * `line.length` if the line has fewer words: splitting `line.slice(wordOffset(line, k))` gives
 * the words from the k-th on, raw texts included.
 */
export function wordOffset(line: string, k: number): number {
  const n = line.length;
  let i = 0;
  for (let w = 0; ; w++) {
    while (i < n && (line.charCodeAt(i) === SPACE || line.charCodeAt(i) === TAB)) i++;
    if (w === k || i === n) return i;
    // Skip one word: plain characters up to a space, tab or quote; a quoted part ends it.
    let c = 0;
    while (i < n) {
      c = line.charCodeAt(i);
      if (c === SPACE || c === TAB || c === QUOTE) break;
      i++;
    }
    if (i < n && c === QUOTE) {
      i++;
      while (i < n) {
        c = line.charCodeAt(i);
        if (c === QUOTE) {
          i++;
          break;
        }
        i += c === BACKSLASH ? 2 : 1;
      }
      if (i > n) i = n;
    }
  }
}

/** The words of `line` from offset `from` as written: its text to the end, trailing blanks cut. */
export function writtenFrom(line: string, from: number): string {
  let end = line.length;
  while (end > from && (line.charCodeAt(end - 1) === SPACE || line.charCodeAt(end - 1) === TAB))
    end--;
  return line.slice(from, end);
}

export function splitRestoreWords(line: string): SplitLine {
  if (line.indexOf('"') === -1 && line.indexOf("\t") === -1) {
    const words = splitSpaces(line);
    return { words, raw: words };
  }
  const words: string[] = [];
  const raw: string[] = [];
  const n = line.length;
  let i = 0;
  while (i < n) {
    const c = line.charCodeAt(i);
    if (c === SPACE || c === TAB) {
      i++;
      continue;
    }
    const start = i;
    const j = plainEnd(line, i, n);
    if (j === n || line.charCodeAt(j) !== QUOTE) {
      const w = line.slice(start, j);
      words.push(w);
      raw.push(w);
      i = j;
      continue;
    }
    // A quoted part: copy runs between backslashes in slices.
    i = quotedEnd(line, j + 1, n);
    words.push(line.slice(start, j) + unquoted(line, j + 1, i));
    raw.push(line.slice(start, i));
  }
  return { words, raw };
}
