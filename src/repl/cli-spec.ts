/**
 * What the REPL needs to know about the CLI's commands (names, subcommands, options, which
 * options take a file), as plain data. The CLI builds it from its command tree and passes it
 * in, with a function that runs a command line: the REPL does not import the CLI's program.
 */

export interface CliCommandSpec {
  readonly name: string;
  readonly summary: string;
  /** Long and short spellings, e.g. "--node-env", "-f". */
  readonly options: readonly string[];
  /** Options that take a value (the next word is not a positional argument). */
  readonly valueOptions: readonly string[];
  readonly subcommands: readonly CliCommandSpec[];
}

export interface CliIO {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly readStdin: () => string;
}

export type RunCommand = (argv: readonly string[], io: CliIO) => Promise<number>;

/** Options whose value names a file or folder (completion offers paths after them). */
export const FILE_OPTIONS: ReadonlySet<string> = new Set([
  "-f",
  "--filename",
  "--node-env",
  "--proxy-config",
  "--rules",
  "--ipsets",
  "--packets",
  "--out",
  "--against",
  "--snapshot",
  "--probes",
]);

/** The (sub)command a word list names, and the words after it. */
export function resolveCli(
  specs: readonly CliCommandSpec[],
  words: readonly string[],
): { readonly spec: CliCommandSpec; readonly depth: number } | undefined {
  const top = specs.find((s) => s.name === words[0]);
  if (top === undefined) return undefined;
  let spec: CliCommandSpec = top;
  let depth = 1;
  for (;;) {
    const next: CliCommandSpec | undefined = spec.subcommands.find((s) => s.name === words[depth]);
    if (next === undefined) return { spec, depth };
    spec = next;
    depth++;
  }
}
