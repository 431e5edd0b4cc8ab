/**
 * The `kube-netsim` command tree. Each command lives in src/cli/commands/<name>.ts and exports
 * `register(program)`; this file lists them. Errors become one line on stderr and an exit code
 * (0 ok, 1 a check failed, 2 bad input or usage), printed by src/cli/render-errors.ts; only
 * programmer errors show a stack.
 */
import { Command } from "commander";
import { escapeControl } from "../model/issue.js";
import { reportError } from "./render-errors.js";
import { COMMANDS } from "./commands/index.js";

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
  /** stderr is a terminal: progress may be shown there (src/cli/progress.ts). */
  readonly stderrIsTTY?: boolean;
  /** Runs another command line in a fresh program (the REPL's lines); runCli sets it. */
  readonly run?: (argv: readonly string[], io: CliIO) => Promise<number>;
}

export function buildProgram(io: CliIO): Command {
  const program = new Command("kube-netsim")
    .description(
      // One paragraph: commander wraps it to the terminal's width (a hard newline wrapped again).
      "Kubernetes node networking in memory: kube-proxy iptables/IPVS/nftables rules, hostports, " +
        "NetworkPolicy verdicts and packet traces, offline and exact.",
    )
    .version("0.1.0")
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      // A usage error is one line (user text escaped), then a hint; not the whole help page.
      outputError: (message, write) => write(`${usageErrorLine(message)}\n`),
    })
    .exitOverride();
  for (const register of COMMANDS) register(program, io);
  addUsageHints(program, "kube-netsim");
  program.addHelpText(
    "after",
    `
Exit codes: 0 success, 1 a check or verdict failed, 2 bad input or usage.

Examples:
  kube-netsim validate -f examples/sctp-test-plan/
  kube-netsim render iptables -f examples/sctp-test-plan/ --node-env examples/sctp-test-plan/node.yaml
  kube-netsim policy check -f examples/sctp-test-plan/ --from default/client --to default/server --port 5000 --protocol SCTP`,
  );
  return program;
}

/** Commander's message on one line: its own "(Did you mean X?)" suggestion joined, user text escaped. */
function usageErrorLine(message: string): string {
  return escapeControl(message.replace(/\n$/, "").replace(/\n\(Did you mean /g, " (Did you mean "));
}

/** After a usage error, every command names its own help: `(see kube-netsim render iptables --help)`. */
function addUsageHints(cmd: Command, path: string): void {
  cmd.showHelpAfterError(`(see ${path} --help)`);
  for (const sub of cmd.commands) addUsageHints(sub, `${path} ${sub.name()}`);
}

/** Runs the CLI and returns the exit code (does not call process.exit). */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const program = buildProgram({ run: runCli, ...io });
  // Commands report "check failed" through process.exitCode; isolate it per run so that a REPL
  // line or a test never inherits the previous command's code.
  const saved = process.exitCode;
  process.exitCode = undefined;
  try {
    await program.parseAsync([...argv], { from: "user" });
    const code = process.exitCode;
    return typeof code === "number" ? code : 0;
  } catch (e) {
    return reportError(e, io);
  } finally {
    process.exitCode = saved;
  }
}
