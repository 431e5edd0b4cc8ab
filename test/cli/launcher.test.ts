/**
 * bin/kube-netsim.js as a user runs it in a clone: it bundles the sources (once per state of
 * src/, under node_modules/.cache/kube-netsim) and runs the bundle. A command line loads only
 * what it uses: `--version` none of Node's built-in modules that Node has not loaded itself
 * (child_process, crypto, os, repl, ...: the launcher defers them to their first use), and a
 * user's module (`conformance --adapter FILE`) is imported through the launcher's own loader.
 */
import { describe, expect, test } from "@jest/globals";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");
const BIN = join(ROOT, "bin", "kube-netsim.js");

function cli(args: readonly string[], nodeArgs: readonly string[] = []) {
  const env = { ...process.env };
  delete env.KUBE_NETSIM_FROM_SOURCE;
  delete env.NODE_OPTIONS;
  return spawnSync(process.execPath, [...nodeArgs, BIN, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env,
  });
}

describe("bin/kube-netsim.js", () => {
  test("runs a command from the bundle of the sources", () => {
    const r = cli(["validate", "-f", "examples/sctp-service/cluster.yaml"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("ok\n");
    expect(r.status).toBe(0);
    const cache = join(ROOT, "node_modules", ".cache", "kube-netsim");
    const bundles = readdirSync(cache).filter((n) => /^cli-[0-9a-f]{16}$/.test(n));
    expect(bundles.length).toBeGreaterThan(0);
    const built = bundles.filter((b) => existsSync(join(cache, b, "main.js")));
    expect(built.length).toBeGreaterThan(0);
    // Each file of it runs as strict mode code, as the ES modules it was made of.
    const dir = join(cache, built[0]!);
    const files = readdirSync(dir).filter((n) => n.endsWith(".js"));
    expect(files.length).toBeGreaterThan(1);
    for (const f of files)
      expect(readFileSync(join(dir, f), "latin1")).toMatch(
        /^(#![^\n]*\n)?\(function \(exports, require, module, __filename, __dirname\) \{"use strict";/,
      );
  });

  test("a code cache that cannot be written leaves the run without caches, not broken", () => {
    // main.js's cache is rejected (a directory stands where the file would be) and writing it
    // fails (a file cannot be renamed over a directory): the run goes on without caches, while
    // the bundle's other files still have theirs (a crash once: path of an undefined directory).
    expect(cli(["validate", "-f", "examples/sctp-service/cluster.yaml"]).status).toBe(0);
    const cache = join(ROOT, "node_modules", ".cache", "kube-netsim");
    const dir = readdirSync(cache)
      .map((b) => join(cache, b))
      .find((d) => existsSync(join(d, "main.v8")) && statSync(join(d, "main.v8")).isFile());
    expect(dir).toBeDefined();
    const others = readdirSync(dir!).filter((n) => n.endsWith(".v8") && n !== "main.v8");
    expect(others.length).toBeGreaterThan(0);
    const saved = readFileSync(join(dir!, "main.v8"));
    rmSync(join(dir!, "main.v8"));
    mkdirSync(join(dir!, "main.v8", "x"), { recursive: true });
    try {
      const r = cli(["validate", "-f", "examples/sctp-service/cluster.yaml"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("ok\n");
      expect(r.status).toBe(0);
    } finally {
      rmSync(join(dir!, "main.v8"), { recursive: true, force: true });
      writeFileSync(join(dir!, "main.v8"), saved);
    }
  });

  test("--version loads none of the built-in modules Node has not loaded itself", () => {
    const dir = mkdtempSync(join(tmpdir(), "kns-launcher-"));
    try {
      const probe = join(dir, "loaded.cjs");
      writeFileSync(
        probe,
        'process.on("exit", () => process.stderr.write(JSON.stringify(process.moduleLoadList)));\n',
      );
      const r = cli(["--version"], ["--require", probe]);
      expect(r.stdout).toBe("0.1.0\n");
      const loaded = (JSON.parse(r.stderr) as string[])
        .filter((m) => m.startsWith("NativeModule "))
        .map((m) => m.slice("NativeModule ".length));
      expect(loaded).toContain("vm");
      // (net is loaded by Node itself to write to a pipe.)
      for (const m of ["child_process", "crypto", "dgram", "os", "repl", "readline"])
        expect(loaded).not.toContain(m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("imports a user's module (conformance --adapter FILE)", () => {
    const dir = mkdtempSync(join(tmpdir(), "kns-launcher-"));
    try {
      const adapter = join(dir, "adapter.mjs");
      writeFileSync(adapter, 'export const unrelated = "not an adapter";\n');
      const r = cli(["conformance", "--adapter", adapter, "--suite", "sctp"]);
      expect(r.stderr).toBe(
        `kube-netsim: ${adapter}: exports no adapter (a default or "adapter" export with name, features and nodeState)\n`,
      );
      expect(r.status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
