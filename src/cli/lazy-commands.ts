/**
 * The CLI's entry runs a command line with only the command it names: a command's module (and
 * all it imports: the model, the proxiers, the tracer, child_process...) is loaded when a line
 * names it, so `--version` loads none and `validate` does not load the tracer. In the launcher's
 * bundle (bin/kube-netsim.js) each `import()` here is a chunk of its own, read only when loaded.
 * A line whose first word is not listed here (`--help`, `help`, an unknown or misspelt command,
 * `repl`, which completes every command, a command added to commands/index.ts but not here)
 * gets the program with every command, as `runCli` builds it: this table only makes starts
 * cheaper, never changes what a line does (test/cli/lazy-commands.test.ts).
 */
import type { RegisterCommand } from "./commands/index.js";
import { programWith, runProgram } from "./program-core.js";
import type { CliIO } from "./program.js";

/** Each command the CLI can load alone, by its name. */
export const COMMAND_LOADERS: ReadonlyMap<string, () => Promise<RegisterCommand>> = new Map([
  ["validate", async () => (await import("./commands/validate.js")).registerValidate],
  ["render", async () => (await import("./commands/render.js")).registerRender],
  ["policy", async () => (await import("./commands/policy.js")).registerPolicy],
  ["trace", async () => (await import("./commands/trace.js")).registerTrace],
  ["parse", async () => (await import("./commands/parse.js")).registerParse],
  ["report", async () => (await import("./commands/report.js")).registerReport],
  ["verify", async () => (await import("./commands/verify.js")).registerVerify],
  ["snapshot", async () => (await import("./commands/snapshot.js")).registerSnapshot],
  ["conformance", async () => (await import("./commands/conformance.js")).registerConformance],
]);

/** The commands a command line needs: the one it names, none for `--version`, else all. */
export async function commandsFor(argv: readonly string[]): Promise<readonly RegisterCommand[]> {
  const first = argv[0];
  const load = first === undefined ? undefined : COMMAND_LOADERS.get(first);
  if (load !== undefined) return [await load()];
  if (argv.length === 1 && (first === "--version" || first === "-V")) return [];
  return (await import("./commands/index.js")).COMMANDS;
}

/** Runs the CLI as `runCli` does, loading only the commands the line needs. */
export async function runCliLazily(argv: readonly string[], io: CliIO): Promise<number> {
  const commands = await commandsFor(argv);
  return runProgram(argv, io, programWith({ run: runCliLazily, ...io }, commands));
}
