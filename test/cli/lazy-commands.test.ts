/**
 * The CLI's entry loads only the command a line names (src/cli/lazy-commands.ts): that must make
 * starts cheaper and change nothing else. Each loader registers exactly its command, every
 * command but `repl` (which completes every command) has a loader, and lines run through the
 * lazy entry print what they print with every command registered.
 */
import { describe, expect, test } from "@jest/globals";
import { Command } from "commander";
import { commandsFor, COMMAND_LOADERS, runCliLazily } from "../../src/cli/lazy-commands.js";
import { buildProgram, runCli, type CliIO } from "../../src/cli/program.js";
import type { CliRun } from "./helpers.js";

const io: CliIO = { stdout: () => undefined, stderr: () => undefined, readStdin: () => "" };

async function runWith(
  runner: (argv: readonly string[], io: CliIO) => Promise<number>,
  argv: readonly string[],
): Promise<CliRun> {
  let out = "";
  let err = "";
  const saved = process.exitCode;
  const code = await runner(argv, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
  });
  process.exitCode = saved;
  return { code, out, err };
}

const NAMES = [...COMMAND_LOADERS.keys()];

describe("the command loaders", () => {
  test("each registers exactly the command it is named for", async () => {
    expect(NAMES.length).toBeGreaterThan(5);
    for (const [name, load] of COMMAND_LOADERS) {
      const program = new Command("kube-netsim");
      (await load())(program, io);
      expect(program.commands.map((c) => c.name())).toEqual([name]);
    }
  });

  test("cover every command but repl", () => {
    const all = buildProgram(io).commands.map((c) => c.name());
    expect(all.filter((n) => !COMMAND_LOADERS.has(n))).toEqual(["repl"]);
  });

  test("--version needs no command; help, repl and unknown words get every command", async () => {
    expect(await commandsFor(["--version"])).toEqual([]);
    const every = buildProgram(io).commands.length;
    for (const argv of [[], ["--help"], ["help", "validate"], ["repl"], ["valdate"]])
      expect((await commandsFor(argv)).length).toBe(every);
  });
});

describe("a line through the lazy entry prints what it prints with every command", () => {
  test.each([
    ["--version"],
    ["--help"],
    ["valdate", "-f", "x"],
    ["validate", "-f", "examples/sctp-service/cluster.yaml"],
    ["validate", "--no-such-option"],
    [
      "render",
      "iptables",
      "-f",
      "examples/sctp-test-plan/",
      "--node-env",
      "examples/sctp-test-plan/node.yaml",
    ],
    ["render", "nosuch"],
  ])("%s", async (...argv) => {
    expect(await runWith(runCliLazily, argv)).toEqual(await runWith(runCli, argv));
  });

  test.each(NAMES)("%s --help", async (name) => {
    const lazy = await runWith(runCliLazily, [name, "--help"]);
    expect(lazy.out).toContain(`Usage: kube-netsim ${name}`);
    expect(lazy).toEqual(await runWith(runCli, [name, "--help"]));
  });
});
