/** Splitting a REPL line into words, as a POSIX shell does for quotes and backslashes. */
export function splitWords(line: string): string[] | { error: string } {
  const words: string[] = [];
  let cur = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) {
        cur += line[++i];
      } else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (c === " " || c === "\t") {
      if (inWord) words.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote !== undefined) return { error: `unterminated ${quote} quote` };
  if (inWord) words.push(cur);
  return words;
}

/** The value of `--name VALUE` / `--name=VALUE` (any of `names`), last one wins. */
export function optionValue(
  words: readonly string[],
  names: readonly string[],
): string | undefined {
  let value: string | undefined;
  words.forEach((w, i) => {
    if (names.includes(w)) value = words[i + 1];
    else for (const n of names) if (w.startsWith(`${n}=`)) value = w.slice(n.length + 1);
  });
  return value;
}

export function optionValues(words: readonly string[], names: readonly string[]): string[] {
  const out: string[] = [];
  words.forEach((w, i) => {
    if (names.includes(w) && words[i + 1] !== undefined) out.push(words[i + 1] as string);
    else for (const n of names) if (w.startsWith(`${n}=`)) out.push(w.slice(n.length + 1));
  });
  return out;
}

/** Positional words: everything that is not an option or an option's value. */
export function positionals(words: readonly string[], valueOptions: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (valueOptions.includes(w)) i++;
    else if (!w.startsWith("-") || w === "-") out.push(w);
  }
  return out;
}
