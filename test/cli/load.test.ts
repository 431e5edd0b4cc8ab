import { describe, expect, test } from "@jest/globals";
import { Command } from "commander";
import {
  addManifestOptions,
  addNodeOptions,
  loadClusterFromOptions,
  loadNodeEnvironmentFromOptions,
  loadProxyConfigFromOptions,
} from "../../src/cli/load.js";
import { CliError } from "../../src/cli/exit.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";
import type { CliIO } from "../../src/cli/program.js";

function io(): { io: CliIO; err: () => string } {
  let err = "";
  return {
    io: { stdout: () => undefined, stderr: (s) => (err += s), readStdin: () => "" },
    err: () => err,
  };
}

/** Commander's own error output, captured so a passing run prints nothing. */
let commanderErr = "";

function parse(args: string[]): Record<string, unknown> {
  const cmd = addNodeOptions(
    addManifestOptions(
      new Command("x").exitOverride().configureOutput({
        writeOut: () => undefined,
        writeErr: (s) => (commanderErr += s),
      }),
    ),
  );
  cmd.parse(args, { from: "user" });
  return cmd.opts();
}

describe("shared CLI options", () => {
  test("-f is repeatable; --feature-gates accumulate; --validation defaults to strict", () => {
    expect(
      parse([
        "-f",
        "a",
        "--filename",
        "b",
        "--feature-gates",
        "A=true",
        "--feature-gates",
        "B=false",
      ]),
    ).toEqual({
      filename: ["a", "b"],
      validation: "strict",
      featureGates: { A: true, B: false },
    });
    commanderErr = "";
    expect(() => parse(["--validation", "lax"])).toThrow();
    expect(commanderErr).toBe(
      "error: option '--validation <mode>' argument 'lax' is invalid. Allowed choices are strict, warn.\n",
    );
    expect(() => parse(["--feature-gates", "A"])).toThrow(CliError);
  });

  test("node options", () => {
    expect(
      parse(["--node-env", "n.yaml", "--node", "n1", "--proxy-config", "p.yaml"]),
    ).toMatchObject({
      nodeEnv: "n.yaml",
      node: "n1",
      proxyConfig: "p.yaml",
    });
  });

  test("loadClusterFromOptions prints warnings to stderr", () => {
    const c = io();
    const cluster = loadClusterFromOptions(
      { filename: ["test/model/fixtures/broken/sctp-test-plan.yaml"], validation: "warn" },
      c.io,
    );
    expect(cluster.pods).toHaveLength(1);
    expect(
      c
        .err()
        .split("\n")
        .filter((l) => l !== ""),
    ).toHaveLength(6);
    expect(() => loadClusterFromOptions({}, c.io)).toThrow("no manifests given");
  });

  test("node environment: from a file, from a Node, or an error", () => {
    const c = io();
    const cluster = loadClusterFromOptions(
      { filename: ["examples/nodeport-loadbalancer/cluster.yaml"] },
      c.io,
    );
    expect(
      loadNodeEnvironmentFromOptions(
        { nodeEnv: "examples/nodeport-loadbalancer/node.yaml" },
        cluster,
      ).nodeIPs,
    ).toEqual(["192.168.10.11"]);
    expect(loadNodeEnvironmentFromOptions({ node: "node-2" }, cluster).nodeIPs).toEqual([
      "192.168.10.12",
    ]);
    expect(() => loadNodeEnvironmentFromOptions({}, cluster)).toThrow(
      "no node given: use --node-env FILE or --node NAME",
    );
    expect(() =>
      loadNodeEnvironmentFromOptions(
        { nodeEnv: "examples/nodeport-loadbalancer/node.yaml", node: "node-2" },
        cluster,
      ),
    ).toThrow('disagrees with nodeName "node-1"');
    expect(() => loadNodeEnvironmentFromOptions({ nodeEnv: "missing.yaml" }, cluster)).toThrow(
      "--node-env missing.yaml: no such file or directory",
    );
  });

  test("proxy config: defaults without a file", () => {
    expect(loadProxyConfigFromOptions({})).toBe(DEFAULT_PROXY_CONFIG);
    expect(
      loadProxyConfigFromOptions({ proxyConfig: "examples/nodeport-loadbalancer/proxy.yaml" })
        .hostnameOverride,
    ).toBe("node-1");
  });
});
