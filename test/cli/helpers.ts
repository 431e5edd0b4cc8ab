/** Runs the CLI in-process with captured io (nothing reaches the test's own stdout/stderr). */
import { runCli, type CliIO } from "../../src/cli/program.js";

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export async function run(args: readonly string[], stdin = ""): Promise<CliRun> {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => stdin,
  };
  const code = await runCli(args, io);
  return { code, out, err };
}
