/** Progress on stderr for policy matrix, verify and trace --packets (issue 15 §3). */
import { afterEach, describe, expect, test } from "@jest/globals";
import { readFileSync } from "node:fs";
import type { Backend, Observation } from "../../src/backends/backend.js";
import { scenarioOfCluster } from "../../src/backends/scenario-of-cluster.js";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { verifyProbes } from "../../src/backends/verify.js";
import { runCli, type CliIO } from "../../src/cli/program.js";

afterEach(() => {
  process.exitCode = undefined;
});

async function run(
  args: readonly string[],
  isTTY: boolean,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIO = {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    readStdin: () => "",
    stderrIsTTY: isTTY,
  };
  const code = await runCli([...args], io);
  return { code, out, err };
}

const CLEAR = "\r\u001b[K";

const MATRIX = ["policy", "matrix", "-f", "examples/sctp-policy/cluster.yaml"];
const VERIFY = [
  "verify",
  "--auto",
  "-f",
  "examples/sctp-service/cluster.yaml",
  "--node-env",
  "examples/sctp-service/node.yaml",
  "--proxy-config",
  "examples/sctp-service/proxy.yaml",
];
const TRACE = [
  "trace",
  "--rules",
  "examples/trace/node.rules",
  "--node-env",
  "examples/trace/node.yaml",
  "--packets",
  "examples/trace/packets.tsv",
];

/** The same bytes on stdout as without a terminal; the status line erased at the end. */
async function onTerminal(args: readonly string[]): Promise<{ out: string; err: string }> {
  const tty = await run(args, true);
  const plain = await run(args, false);
  expect(tty.code).toBe(plain.code);
  expect(tty.out).toBe(plain.out);
  expect(plain.err).toBe("");
  expect(tty.err.endsWith(CLEAR)).toBe(true);
  return tty;
}

describe("progress for long work", () => {
  test("policy matrix: loading, compiling, then the number of probes it computes", async () => {
    const { out, err } = await onTerminal(MATRIX);
    const probes = out.split("\n").filter((l) => l !== "").length - 1; // TSV rows after the header
    expect(probes).toBeGreaterThan(0);
    expect(err).toBe(
      `${CLEAR}loading manifests…${CLEAR}${CLEAR}compiling policies…` +
        `${CLEAR}computing ${probes} probes…${CLEAR}`,
    );
  });

  test("verify: a step per probe, predicted and then probed", async () => {
    const { out, err } = await onTerminal(VERIFY);
    const n = Number(/verify simulator: (\d+) probes/.exec(out)?.[1]);
    expect(n).toBeGreaterThan(0);
    expect(err).toContain(`${CLEAR}loading manifests…${CLEAR}`);
    expect(err).toContain(`${CLEAR}predicting probes… ${n}/${n}`);
    expect(err).toContain(`${CLEAR}setting up simulator…`);
    expect(err).toContain(`${CLEAR}probing on simulator… ${n}/${n}`);
    expect(err.indexOf("predicting")).toBeLessThan(err.indexOf("probing on"));
  });

  test("trace --packets: a step per row, erased before each row's output", async () => {
    const { err } = await onTerminal(TRACE);
    expect(err.startsWith(`${CLEAR}tracing 5 packets…`)).toBe(true);
    expect(err).toContain(`${CLEAR}tracing 5 packets… 5/5${CLEAR}`);
  });

  test("--quiet, or not a terminal: nothing on stderr", async () => {
    for (const args of [MATRIX, VERIFY, TRACE]) {
      const quiet = await run([...args, "--quiet"], true);
      expect(quiet.code).toBe(0);
      expect(quiet.err).toBe("");
      const pipe = await run(args, false);
      expect(pipe.err).toBe("");
      expect(pipe.out).toBe(quiet.out);
    }
  });

  test("verify counts what a backend's probeAll reports as finished", async () => {
    const steps: string[] = [];
    const progress = {
      phase: (l: string) => steps.push(l),
      step: (d: number, t?: number) => steps.push(`${d}/${t ?? "?"}`),
    };
    const skipped: Observation = { kind: "skipped", reason: "fake" };
    const fake: Backend = {
      name: "fake",
      capabilities: () => Promise.resolve([]),
      open: (scenario) => Promise.resolve({ backend: "fake", id: "f", scenario }),
      probe: () => Promise.resolve(skipped),
      probeAll: (_r, probes, finished) => {
        finished?.(2);
        finished?.(probes.length - 2);
        return Promise.resolve(probes.map(() => skipped));
      },
      close: () => Promise.resolve(),
    };
    const probes = [1, 2, 3].map((port) => ({
      protocol: "tcp" as const,
      from: "external",
      to: "192.0.2.1",
      port,
    }));
    const cluster = loadCluster(["examples/sctp-service/cluster.yaml"]);
    const scenario = scenarioOfCluster(cluster, {
      node: parseNodeEnvironment(
        readFileSync("examples/sctp-service/node.yaml", "utf8"),
        "node.yaml",
      ),
      proxyConfig: parseProxyConfig(
        readFileSync("examples/sctp-service/proxy.yaml", "utf8"),
        "proxy.yaml",
      ),
    });
    const r = await verifyProbes(fake, scenario, probes, progress);
    expect(r.summary.probes).toBe(3);
    expect(steps.slice(steps.indexOf("probing on fake"))).toEqual([
      "probing on fake",
      "2/3",
      "3/3",
    ]);
  });
});
