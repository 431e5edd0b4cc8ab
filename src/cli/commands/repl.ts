import type { Command } from "commander";
import { startRepl } from "../../repl/repl.js";

export function registerRepl(program: Command): void {
  program
    .command("repl")
    .description("interactive shell: every command as a line, with the session's manifests")
    .option("-f, --filename <path>", "manifest file or folder (repeatable)", collect, [])
    .addHelpText(
      "after",
      `
Session commands: .load FILE, .unload FILE, .node FILE, .proxy FILE, .session, .help, .exit
Example:
  $ kube-netsim repl -f examples/sctp-test-plan/
  kube-netsim> validate
  kube-netsim> policy matrix --ports 5000 --protocols TCP,SCTP --output text`,
    )
    .action(async (opts: { filename: string[] }) => {
      await startRepl({
        input: process.stdin,
        output: process.stdout,
        files: opts.filename,
        terminal: process.stdin.isTTY,
      });
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
