/**
 * describeSctpConformance as a consumer's jest sees it: jest runs a test file that calls it on
 * the example plugin's protocol-dropping variant; exactly the "does not allow TCP or UDP" test
 * fails (by its upstream name, in its group), with the probe in the failure message.
 */
import { expect, test } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(__dirname, "../../..");

interface JestJson {
  readonly testResults: readonly {
    readonly assertionResults: readonly {
      readonly fullName: string;
      readonly status: string;
      readonly failureMessages: readonly string[];
    }[];
  }[];
}

test("jest reports the buggy plugin failing only that test", () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-netsim-jest-run-"));
  try {
    writeFileSync(
      join(dir, "jest.config.json"),
      JSON.stringify({
        rootDir: dir,
        testEnvironment: "node",
        transform: {
          "^.+\\.ts$": [
            join(ROOT, "node_modules/@swc/jest"),
            { jsc: { parser: { syntax: "typescript" }, target: "es2022" } },
          ],
        },
        moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
      }),
    );
    writeFileSync(
      join(dir, "buggy.test.ts"),
      [
        `import { describeSctpConformance } from ${JSON.stringify(join(ROOT, "src/testing/index"))};`,
        `import { tinypolProtocolDropped } from ${JSON.stringify(join(ROOT, "examples/plugin-repo-cjs/src/netpol-plugin"))};`,
        `describeSctpConformance(tinypolProtocolDropped);`,
        "",
      ].join("\n"),
    );
    const out = join(dir, "result.json");
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules/jest/bin/jest.js"),
        "--config",
        join(dir, "jest.config.json"),
        "--json",
        "--outputFile",
        out,
        "--ci",
      ],
      { cwd: dir, encoding: "utf8", timeout: 120_000 },
    );
    expect(r.status).toBe(1);
    const json = JSON.parse(readFileSync(out, "utf8")) as JestJson;
    const results = json.testResults.flatMap((t) => t.assertionResults);
    expect(results).toHaveLength(5);
    const failed = results.filter((a) => a.status === "failed");
    expect(failed.map((a) => a.fullName)).toEqual([
      "SCTP conformance: tinypol (protocol dropped) [Feature:SCTP] A NetworkPolicy matching an SCTP port does not allow TCP or UDP traffic",
    ]);
    expect(failed[0]?.failureMessages.join("\n")).toContain(
      "ConformanceFailure: probe TCP sctp-test/client → 10.244.1.20:5000 through tinypol (protocol dropped)",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
