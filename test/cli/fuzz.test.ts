/**
 * The CLI fuzz (issue #19 "Done when"): every command over mutated manifests, rules, proxy
 * configurations and packet options, run in-process. Whatever the input, a command ends with
 * exit 0, 1 or 2 (never 70, never a stack trace), every problem is one line (user text that
 * holds a newline or an escape sequence cannot forge a second line or reach the terminal raw),
 * and the process stays within a memory bound. Whatever `validate` accepts, every command
 * handles (issue #19 items 6 and 7).
 *
 * CI runs a fixed seed. Soak: KUBE_NETSIM_CLI_FUZZ_RUNS=5000 (runs per property) and optionally
 * KUBE_NETSIM_CLI_FUZZ_SEED=<n> for another sequence, e.g.
 *   KUBE_NETSIM_CLI_FUZZ_RUNS=5000 npx jest test/cli/fuzz
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "@jest/globals";
import { fc } from "@fast-check/jest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import {
  FORGED,
  hostileString,
  mutate,
  mutatedObject,
  mutation,
  paths,
  proxyConfigObjects,
} from "../model/fuzz-corpus.js";
import { run, type CliRun } from "./helpers.js";

const RUNS = Number(process.env["KUBE_NETSIM_CLI_FUZZ_RUNS"] ?? "40");
const SEED = Number(process.env["KUBE_NETSIM_CLI_FUZZ_SEED"] ?? "20261201");
const SOAK = process.env["KUBE_NETSIM_CLI_FUZZ_RUNS"] !== undefined;
/** Heap bound for one command on these small inputs (a runaway trace or load is far above it). */
const HEAP_LIMIT = 1.5 * 1024 ** 3;

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kns-cli-fuzz-"));
  writeFileSync(join(dir, "node.yaml"), readFileSync("examples/sctp-nodeport/node.yaml"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = undefined;
});

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** The properties every run has, whatever the input. */
function expectWellBehaved(args: readonly string[], r: CliRun): void {
  const where = JSON.stringify(args);
  expect([where, r.code]).toEqual([where, expect.any(Number)]);
  expect({ where, code: [0, 1, 2].includes(r.code) ? "ok" : r.code, err: r.err }).toMatchObject({
    code: "ok",
  });
  expect(r.err).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(r.err).not.toContain("internal error");
  // One problem, one line: a forged line never starts a line, and no raw control characters.
  for (const line of r.err.split("\n")) expect(line.startsWith(FORGED)).toBe(false);
  // eslint-disable-next-line no-control-regex
  expect(r.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u2028\u2029]/);
  expect(process.memoryUsage().heapUsed).toBeLessThan(HEAP_LIMIT);
}

const MANIFEST_COMMANDS: readonly (readonly string[])[] = [
  ["validate"],
  ["validate", "-o", "json"],
  ["render", "iptables", "--node-env", "NODE"],
  ["render", "iptables", "--node", "node-a", "--format", "save"],
  [
    "render",
    "ipvs",
    "--node-env",
    "NODE",
    "--proxy-config",
    "examples/sctp-nodeport/proxy-ipvs.yaml",
  ],
  ["render", "hostports", "--node-env", "NODE"],
  ["render", "hostports", "--node-env", "NODE", "--impl", "portmap", "-o", "json"],
  ["policy", "matrix", "--ports", "80,5000", "--protocols", "TCP,SCTP"],
  [
    "policy",
    "check",
    "--from",
    "default/client",
    "--to",
    "default/server",
    "--port",
    "5000",
    "--protocol",
    "SCTP",
  ],
  [
    "trace",
    "--node-env",
    "NODE",
    "--proto",
    "tcp",
    "--src",
    "10.0.0.2",
    "--dst",
    "192.168.0.10",
    "--dport",
    "30080",
  ],
];

function withNode(args: readonly string[]): string[] {
  return args.map((a) => (a === "NODE" ? join(dir, "node.yaml") : a));
}

const manifestText: fc.Arbitrary<string> = fc
  .tuple(fc.array(mutatedObject, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([objs, asList]) =>
    asList
      ? stringify({ apiVersion: "v1", kind: "List", items: objs })
      : objs.map((o) => stringify(o)).join("---\n"),
  );

const PROPS = { numRuns: RUNS, seed: SEED, endOnFailure: true } as const;

describe("CLI fuzz", () => {
  test(
    "manifests: every command, strict and warn",
    async () => {
      expect.hasAssertions();
      await fc.assert(
        fc.asyncProperty(
          manifestText,
          fc.constantFrom(...MANIFEST_COMMANDS),
          fc.constantFrom("strict", "warn"),
          async (text, cmd, validation) => {
            const args = [...withNode(cmd), "-f", "-", "--validation", validation];
            expectWellBehaved(args, await run(args, text));
          },
        ),
        PROPS,
      );
    },
    SOAK ? 3_600_000 : 120_000,
  );

  test(
    "whatever validate accepts, every command handles",
    async () => {
      expect.hasAssertions();
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(
          manifestText,
          fc.constantFrom("strict", "warn"),
          async (text, validation) => {
            const v = await run(["validate", "-f", "-", "--validation", validation], text);
            expectWellBehaved(["validate"], v);
            if (v.code !== 0) return;
            accepted++;
            for (const cmd of MANIFEST_COMMANDS.slice(2)) {
              const args = [...withNode(cmd), "-f", "-", "--validation", validation];
              expectWellBehaved(args, await run(args, text));
            }
          },
        ),
        PROPS,
      );
      // The property is not vacuous: some mutated inputs are accepted.
      expect(accepted).toBeGreaterThan(0);
    },
    SOAK ? 3_600_000 : 240_000,
  );

  test(
    "proxy configurations",
    async () => {
      expect.hasAssertions();
      expect(proxyConfigObjects.length).toBeGreaterThan(0);
      const configs = fc
        .constantFrom(...proxyConfigObjects)
        .chain((o) => fc.tuple(fc.constant(o), fc.constantFrom(...paths(o)), mutation))
        .map(([o, p, m]) => stringify(mutate(o, p, m)));
      await fc.assert(
        fc.asyncProperty(configs, fc.constantFrom("iptables", "ipvs"), async (text, what) => {
          const args = [
            "render",
            what,
            "-f",
            "examples/sctp-nodeport/cluster.yaml",
            "--node-env",
            join(dir, "node.yaml"),
            "--proxy-config",
            file("proxy.yaml", text),
          ];
          expectWellBehaved(args, await run(args));
        }),
        PROPS,
      );
    },
    SOAK ? 3_600_000 : 120_000,
  );

  const RULES = readFileSync("examples/netfilter/kube-proxy.rules", "utf8").split("\n");
  const rulesText = fc
    .tuple(
      fc.array(
        fc.oneof(
          fc.record({ at: fc.nat(), kind: fc.constant("delete" as const) }),
          fc.record({
            at: fc.nat(),
            kind: fc.constant("insert" as const),
            text: fc.oneof(
              hostileString,
              fc.string({ maxLength: 30 }),
              fc.constantFrom(
                "COMMIT",
                "*nat",
                ":X - [0:0]",
                "-A X -j X",
                '-A KUBE-SERVICES -m comment --comment "a\u001bb" -j ACCEPT',
                "\ufeff*filter",
              ),
            ),
          }),
          fc.record({ at: fc.nat(), kind: fc.constant("duplicate" as const) }),
        ),
        { maxLength: 4 },
      ),
    )
    .map(([edits]) => {
      const lines = [...RULES];
      for (const e of edits) {
        const i = e.at % (lines.length + 1);
        if (e.kind === "delete") lines.splice(i, 1);
        else if (e.kind === "insert") lines.splice(i, 0, e.text);
        else lines.splice(i, 0, lines[i] ?? "");
      }
      return lines.join("\n");
    });

  test(
    "rules: parse and trace --rules",
    async () => {
      expect.hasAssertions();
      await fc.assert(
        fc.asyncProperty(rulesText, fc.boolean(), async (text, trace) => {
          const rules = file("r.rules", text);
          const args = trace
            ? [
                "trace",
                "--rules",
                rules,
                "--node-env",
                join(dir, "node.yaml"),
                "--proto",
                "tcp",
                "--src",
                "10.0.0.2",
                "--dst",
                "172.30.0.41",
                "--dport",
                "80",
              ]
            : ["parse", "--check", rules];
          expectWellBehaved(args, await run(args));
        }),
        PROPS,
      );
    },
    SOAK ? 3_600_000 : 120_000,
  );

  test(
    "packet options",
    async () => {
      expect.hasAssertions();
      const token = fc.oneof(
        hostileString,
        fc.constantFrom(
          "tcp",
          "udp",
          "sctp",
          "icmp",
          "",
          "0",
          "65536",
          "-1",
          "010.0.0.1",
          "::1",
          "fe80::1%eth0",
          "1e3",
          "0x50",
          "10.96.0.10",
          "192.168.0.10",
        ),
        fc.string({ maxLength: 12 }),
      );
      await fc.assert(
        fc.asyncProperty(token, token, token, token, async (proto, src, dst, dport) => {
          const args = [
            "trace",
            "-f",
            "examples/sctp-nodeport/cluster.yaml",
            "--node-env",
            join(dir, "node.yaml"),
            "--proto",
            proto,
            "--src",
            src,
            "--dst",
            dst,
            "--dport",
            dport,
          ];
          expectWellBehaved(args, await run(args));
        }),
        PROPS,
      );
    },
    SOAK ? 3_600_000 : 120_000,
  );
});
