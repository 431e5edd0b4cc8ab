/**
 * The `kube-netsim` command tree. Each command lives in src/cli/commands/<name>.ts and exports
 * `register(program)`; commands/index.ts lists them, program-core.ts builds the program around
 * them, and src/cli/lazy-commands.ts (the CLI's entry) loads only the command a line names. Errors become one line on stderr and an exit code
 * (0 ok, 1 a check failed, 2 bad input or usage), printed by src/cli/render-errors.ts; only
 * programmer errors show a stack.
 */
import type { Command } from "commander";
import { COMMANDS } from "./commands/index.js";
import { programWith, runProgram } from "./program-core.js";

export interface CliIO {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Reads stdin (for `-f -`). */
  readonly readStdin: () => string;
  /**
   * Reads stdin as bytes, for input whose bytes matter beyond UTF-8 (`parse` keeps invalid
   * UTF-8 in rules text, src/util/byte-text.ts); when absent, readStdin's text is used.
   */
  readonly readStdinBytes?: () => Uint8Array;
  /**
   * Writes bytes to stdout (`parse` prints kept invalid UTF-8 bytes back raw, as iptables-save
   * does); when absent, stdout gets the text.
   */
  readonly stdoutBytes?: (b: Uint8Array) => void;
  /**
   * stdoutBytes has written a piece when it returns (stdout is a regular file), so the caller
   * may write over it next; otherwise (a pipe, a test's capture) it may be kept or queued.
   */
  readonly stdoutBytesSync?: boolean;
  /** stderr is a terminal: progress may be shown there (src/cli/progress.ts). */
  readonly stderrIsTTY?: boolean;
  /** Runs another command line in a fresh program (the REPL's lines); runCli sets it. */
  readonly run?: (argv: readonly string[], io: CliIO) => Promise<number>;
}

/** The program with every command (the REPL completes from it; tests run it). */
export function buildProgram(io: CliIO): Command {
  return programWith(io, COMMANDS);
}

/** Runs the CLI and returns the exit code (does not call process.exit). */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  return runProgram(argv, io, buildProgram({ run: runCli, ...io }));
}
