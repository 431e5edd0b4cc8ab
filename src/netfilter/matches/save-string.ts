/**
 * libxtables' `xtables_save_string`: a word of `[A-Za-z0-9_-]` is printed bare; anything else
 * (including the empty string) is double-quoted with `"`, `\` and `'` backslash-escaped.
 */
const BARE = /^[A-Za-z0-9_-]+$/;

export function saveString(s: string): string {
  if (BARE.test(s)) return s;
  let out = '"';
  for (const ch of s) out += ch === '"' || ch === "\\" || ch === "'" ? `\\${ch}` : ch;
  return `${out}"`;
}
