/**
 * The REPL's state: the manifest sources every command reads, plus node and proxy settings.
 * It changes only through immer's `produce`, so each command sees one consistent snapshot and
 * `undo` is a pointer move.
 */
import { produce } from "immer";

export interface ReplState {
  readonly files: readonly string[];
  readonly nodeEnv?: string;
  readonly proxyConfig?: string;
}

export const EMPTY_STATE: ReplState = { files: [] };

export function addFiles(state: ReplState, files: readonly string[]): ReplState {
  return produce(state, (draft) => {
    for (const f of files) if (!draft.files.includes(f)) draft.files.push(f);
  });
}

export function removeFiles(state: ReplState, files: readonly string[]): ReplState {
  return produce(state, (draft) => {
    draft.files = draft.files.filter((f) => !files.includes(f));
  });
}

export function setSetting(
  state: ReplState,
  key: "nodeEnv" | "proxyConfig",
  value: string | undefined,
): ReplState {
  return produce(state, (draft) => {
    if (value === undefined) delete draft[key];
    else draft[key] = value;
  });
}

/** Commands that read manifests: the session's sources and settings are appended to them. */
const MANIFEST_COMMANDS: ReadonlySet<string> = new Set(["validate", "render", "trace", "policy"]);

/** The CLI argument vector for one REPL command line, with the session's context added. */
export function argvFor(state: ReplState, words: readonly string[]): string[] {
  const [command] = words;
  if (command === undefined || !MANIFEST_COMMANDS.has(command)) return [...words];
  const extra: string[] = [];
  const usesRules = words.includes("--rules");
  if (!usesRules && !words.includes("-f") && !words.includes("--filename")) {
    for (const f of state.files) extra.push("-f", f);
  }
  if (
    state.nodeEnv !== undefined &&
    !words.includes("--node-env") &&
    (command === "render" || command === "trace")
  )
    extra.push("--node-env", state.nodeEnv);
  if (
    state.proxyConfig !== undefined &&
    !words.includes("--proxy-config") &&
    (command === "render" || command === "trace")
  )
    extra.push("--proxy-config", state.proxyConfig);
  return [...words, ...extra];
}

/** Splits a command line into words like a POSIX shell does for quotes and backslashes. */
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
