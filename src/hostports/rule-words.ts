/**
 * Rule argument vectors ↔ restore text. Components such as the CNI portmap plugin pass rules to
 * iptables as argument vectors; in restore text a word with blanks or quotes is double-quoted
 * with `"`, `\` and `'` backslash-escaped, the way iptables-save's `xtables_save_string` does.
 */

const NEEDS_QUOTES = /[\s"'\\]/;

export function quoteWord(word: string): string {
  if (word !== "" && !NEEDS_QUOTES.test(word)) return word;
  return `"${word.replace(/["'\\]/g, (c) => `\\${c}`)}"`;
}

export function formatWords(words: readonly string[]): string {
  return words.map(quoteWord).join(" ");
}

/** Splits restore rule text into words: double quotes group, backslash escapes a character. */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let inWord = false;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\" && i + 1 < text.length) {
      cur += text[++i];
      inWord = true;
    } else if (ch === '"') {
      quoted = !quoted;
      inWord = true;
    } else if (!quoted && /\s/.test(ch)) {
      if (inWord) out.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}
