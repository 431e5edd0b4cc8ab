/**
 * The `kube-netsim` program around its commands: name, version, help text, one-line usage
 * errors with a hint, exit codes. src/cli/program.ts builds it with every command
 * (src/cli/commands/index.ts); the CLI's own entry (src/cli/lazy-commands.ts) with only the command
 * a command line names, so that a start loads no other command's modules. This file imports no
 * command.
 */
import { Command } from "commander";
import { escapeControl } from "../model/issue.js";
import type { RegisterCommand } from "./commands/index.js";
import type { CliIO } from "./program.js";
import { reportError } from "./render-errors.js";

export const VERSION = "0.1.0";

/** The program with these commands (in this order). */
export function programWith(io: CliIO, commands: readonly RegisterCommand[]): Command {
  const program = new Command("kube-netsim")
    .description(
      // One paragraph: commander wraps it to the terminal's width (a hard newline wrapped again).
      "Kubernetes node networking in memory: kube-proxy iptables/IPVS/nftables rules, hostports, " +
        "NetworkPolicy verdicts and packet traces, offline and exact.",
    )
    .version(VERSION)
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      // A usage error is one line (user text escaped), then a hint; not the whole help page.
      outputError: (message, write) => write(`${usageErrorLine(message)}\n`),
    })
    .exitOverride();
  for (const register of commands) register(program, io);
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

/** Runs a command line on a program and returns the exit code (does not call process.exit). */
export async function runProgram(
  argv: readonly string[],
  io: CliIO,
  program: Command,
): Promise<number> {
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
