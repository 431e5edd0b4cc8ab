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

function splitSpaces(line: string): string[] {
  const parts = line.split(" ");
  if (line.indexOf("  ") === -1 && parts[0] !== "" && parts[parts.length - 1] !== "") return parts;
  return parts.filter((p) => p !== "");
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
    let c = line.charCodeAt(i);
    if (c === SPACE || c === TAB) {
      i++;
      continue;
    }
    const start = i;
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
    // A quoted part: copy runs between backslashes in slices.
    let word = line.slice(start, j);
    i = j + 1;
    for (;;) {
      const q = line.indexOf('"', i);
      const b = line.indexOf("\\", i);
      if (b !== -1 && (q === -1 || b < q)) {
        word += line.slice(i, b) + line.slice(b + 1, b + 2);
        i = Math.min(b + 2, n);
        continue;
      }
      if (q === -1) {
        word += line.slice(i);
        i = n;
        break;
      }
      word += line.slice(i, q);
      i = q + 1;
      break;
    }
    words.push(word);
    raw.push(line.slice(start, i));
  }
  return { words, raw };
}
