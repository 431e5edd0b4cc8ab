/**
 * Rule argument vectors ↔ restore text. Components such as the CNI portmap plugin pass rules to
 * iptables as argument vectors; in restore text a word with blanks or quotes is double-quoted
 * with `"`, `\` and `'` backslash-escaped, the way iptables-save's `xtables_save_string` does.
 * `normalizeRule` is the kubelet fake iptables' storage form of a written rule.
 */

import { parseIP } from "../net/index.js";

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

/**
 * A written rule as the kubelet's fake iptables stores it: words split on spaces except inside
 * double quotes, `--to-destination=X` as two words, and bare addresses given a host prefix
 * (`/32`, or `/128` for IPv6 where the fake says `/32`).
 */
export function normalizeRule(rule: string): string {
  const words: string[] = [];
  let rest = rule.trim();
  while (rest.length > 0) {
    if (rest.startsWith("--to-destination=")) rest = rest.replace("=", " ");
    let end: number;
    if (rest.startsWith('"')) {
      const close = rest.indexOf('"', 1);
      end = close < 0 ? rest.length : close + 1;
    } else {
      end = rest.indexOf(" ");
      if (end < 0) end = rest.length;
    }
    let word = rest.slice(0, end);
    const ip = parseIP(word, "lenient");
    if (ip !== undefined) word = `${word}/${ip.family === "IPv4" ? 32 : 128}`;
    words.push(word.trim());
    rest = rest.slice(end + 1).trimStart();
  }
  return words.join(" ");
}
