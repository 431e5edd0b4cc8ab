/** Progress on stderr: only on a terminal, never with --quiet, always erased at the end. */
import { afterEach, describe, expect, test } from "@jest/globals";
import { runCli, type CliIO } from "../../src/cli/program.js";
import { startProgress } from "../../src/cli/progress.js";

afterEach(() => {
  process.exitCode = undefined;
});

function tty(isTTY: boolean): { io: CliIO; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    io: {
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
      readStdin: () => "",
      stderrIsTTY: isTTY,
    },
    out: () => out,
    err: () => err,
  };
}

const ARGS = [
  "render",
  "iptables",
  "-f",
  "examples/sctp-nodeport/cluster.yaml",
  "--node-env",
  "examples/sctp-nodeport/node.yaml",
];
const CLEAR = "\r\u001b[K";

describe("progress", () => {
  test("on a terminal: phases on one status line, erased before the command ends", async () => {
    const t = tty(true);
    expect(await runCli(ARGS, t.io)).toBe(0);
    expect(t.err()).toBe(
      `${CLEAR}loading manifests…${CLEAR}${CLEAR}rendering iptables rules…${CLEAR}`,
    );
    const plain = tty(false);
    await runCli(ARGS, plain.io);
    expect(t.out()).toBe(plain.out());
  });

  test("not a terminal, or --quiet: nothing", async () => {
    const pipe = tty(false);
    expect(await runCli(ARGS, pipe.io)).toBe(0);
    expect(pipe.err()).toBe("");
    for (const q of ["--quiet", "-q"]) {
      const quiet = tty(true);
      expect(await runCli([...ARGS, q], quiet.io)).toBe(0);
      expect(quiet.err()).toBe("");
    }
  });

  test("steps are throttled; the last one is always drawn", () => {
    const t = tty(true);
    let clock = 0;
    const p = startProgress(t.io, {}, () => clock);
    p.phase("probing");
    p.step(1, 3);
    clock = 150;
    p.step(2, 3);
    p.step(3, 3);
    p.end();
    expect(t.err()).toBe(`${CLEAR}probing…${CLEAR}probing… 2/3${CLEAR}probing… 3/3${CLEAR}`);
  });

  test("an error while loading erases the line before the error", async () => {
    const t = tty(true);
    expect(await runCli(["validate", "-f", "-"], t.io)).toBe(2);
    expect(t.err()).toBe(
      `${CLEAR}loading manifests…${CLEAR}kube-netsim: no objects passed: standard input holds no Kubernetes objects\n`,
    );
  });
});
