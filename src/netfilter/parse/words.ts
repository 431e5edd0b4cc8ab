/**
 * Splitting a restore line into words exactly as iptables-restore's `add_param_to_argv` does:
 * words are separated by spaces and tabs; `"` opens a quoted part in which a backslash escapes
 * the next character and spaces are kept; a closing `"` ends the word (so `""` is an empty word).
 * Outside quotes a backslash is an ordinary character.
 *
 * Alongside each word we keep its raw text (quotes and escapes as written), which is what the
 * restore formatter prints back for byte-for-byte round trips.
 */
export interface SplitLine {
  readonly words: string[];
  readonly raw: string[];
  /** Set when a quote is still open at the end of the line. */
  readonly unterminatedQuote: boolean;
}

const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BACKSLASH = 92;

export function splitRestoreWords(line: string): SplitLine {
  const words: string[] = [];
  const raw: string[] = [];
  const n = line.length;
  let i = 0;
  while (i < n) {
    let c = line.charCodeAt(i);
    if (c === SPACE || c === TAB) {
      i++;
      continue;
    }
    const start = i;
    // Fast path: a word with no quote at all is its own raw text.
    let j = i;
    while (j < n) {
      c = line.charCodeAt(j);
      if (c === SPACE || c === TAB || c === QUOTE) break;
      j++;
    }
    if (j === n || c !== QUOTE) {
      const w = line.slice(start, j);
      words.push(w);
      raw.push(w);
      i = j;
      continue;
    }
    let word = line.slice(start, j);
    i = j + 1;
    let closed = false;
    while (i < n) {
      c = line.charCodeAt(i);
      if (c === BACKSLASH && i + 1 < n) {
        word += line[i + 1];
        i += 2;
        continue;
      }
      if (c === BACKSLASH) {
        i++;
        continue;
      }
      if (c === QUOTE) {
        closed = true;
        i++;
        break;
      }
      word += line[i];
      i++;
    }
    words.push(word);
    raw.push(line.slice(start, i));
    if (!closed) return { words, raw, unterminatedQuote: true };
  }
  return { words, raw, unterminatedQuote: false };
}
