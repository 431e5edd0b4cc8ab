/**
 * The package as plugin repositories get it (issue 13 §1): `npm pack`, then the tarball installed
 * into fresh copies of examples/plugin-repo-cjs (exactly `npx ts-jest config:init`: CommonJS, a
 * `moduleResolution: node10` tsconfig, no transform config for us) and examples/plugin-repo-esm
 * (native ESM jest, plus a node:test file), whose own tests must pass. Also the tarball's
 * hygiene: both builds, every `exports`/`main`/`types`/`typesVersions` target present, no source
 * maps, no install-time build, a license, and no dead relative link in the shipped Markdown.
 *
 * Slow by nature (a build and two npm installs); the tarball, npm's cache and each consumer's
 * installed node_modules (keyed by a hash of the tarball and the consumer's package.json; set
 * KUBE_NETSIM_PACKAGE_FRESH=1 to install anyway) are kept under the OS temp dir. Cold and warm times of the consumers' `npm test` are written to
 * $TMPDIR/kube-netsim-package-tests/timings.json (figures for the record, not assertions).
 */
import { afterAll, beforeAll, describe, expect, test } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, normalize } from "node:path";
import { CACHE, childEnv, mustRun, packTarball, ROOT, run, type Packed } from "./pack.js";

const TIMEOUT = 30 * 60 * 1000;

let packed: Packed;
let unpacked: string;
let files: Set<string>;
const timings: Record<string, number> = {};

beforeAll(() => {
  mkdirSync(CACHE, { recursive: true });
  packed = packTarball();
  timings["pack"] = packed.seconds;
  unpacked = mkdtempSync(join(CACHE, "unpacked-"));
  mustRun("tar", ["xzf", packed.tarball, "-C", unpacked], ROOT);
  const list = (dir: string, prefix: string): string[] =>
    readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? list(dir, join(prefix, e.name)) : [join(prefix, e.name)],
    );
  files = new Set(list(join(unpacked, "package"), ""));
}, TIMEOUT);

interface Manifest {
  license?: string;
  main?: string;
  types?: string;
  scripts?: Record<string, string>;
  exports?: Record<string, unknown>;
  typesVersions?: Record<string, Record<string, string[]>>;
  files?: string[];
}

function manifest(): Manifest {
  return JSON.parse(readFileSync(join(unpacked, "package", "package.json"), "utf8")) as Manifest;
}

function targets(x: unknown): string[] {
  if (typeof x === "string") return [x];
  if (typeof x === "object" && x !== null) return Object.values(x).flatMap(targets);
  return [];
}

const inTarball = (p: string): boolean => files.has(normalize(p));

describe("the packed tarball", () => {
  test("ships both builds with every entry point and no source maps or sources", () => {
    const m = manifest();
    const entries = [m.main, m.types, ...targets(m.exports), ...targets(m.typesVersions)].filter(
      (t): t is string => t !== undefined,
    );
    expect(entries.length).toBeGreaterThan(12);
    expect(entries.filter((e) => !inTarball(e))).toEqual([]);
    for (const sub of ["", "testing/", "jest/"])
      for (const build of ["esm", "cjs"])
        for (const ext of ["js", "d.ts"])
          expect(inTarball(`dist/${build}/${sub}index.${ext}`)).toBe(true);
    expect(
      JSON.parse(readFileSync(join(unpacked, "package/dist/cjs/package.json"), "utf8")),
    ).toEqual({
      type: "commonjs",
    });
    expect([...files].filter((f) => f.endsWith(".map") || f.startsWith("src/"))).toEqual([]);
  });

  test("only the kit needs the peer dependencies: the library never loads fast-check or expect", () => {
    const js = [...files].filter((f) => f.startsWith("dist/") && f.endsWith(".js"));
    expect(js.length).toBeGreaterThan(100);
    const loadsPeer = (f: string) =>
      /(from\s+|require\()\s*["'](fast-check|expect|@jest\/[a-z-]+)["']/.test(
        readFileSync(join(unpacked, "package", f), "utf8"),
      );
    // The CLI's bundle (dist/cli) requires fast-check where the conformance command's property
    // suites are (they say when it is missing), as dist/esm does: never in its entry file.
    const peerLoads = js.filter(
      (f) => !/^dist\/((esm|cjs)\/(testing|jest)|cli)\//.test(f) && loadsPeer(f),
    );
    expect(peerLoads).toEqual([]);
    expect(loadsPeer("dist/cli/main.js")).toBe(false);
  });

  test("builds when packed, never on install; licensed", () => {
    const m = manifest();
    expect(m.scripts?.["prepack"]).toBeDefined();
    for (const hook of ["prepare", "preinstall", "install", "postinstall"])
      expect(m.scripts?.[hook]).toBeUndefined();
    expect(m.license).toBe("Apache-2.0");
    expect(readFileSync(join(unpacked, "package/LICENSE"), "utf8")).toMatch(
      /^\s*Apache License\s+Version 2\.0/,
    );
  });

  test("the shipped Markdown has no dead relative links", () => {
    const docs = [...files].filter((f) => f.endsWith(".md"));
    expect(docs).toContain("README.md");
    const dead: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(unpacked, "package", doc), "utf8");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = (m[1] as string).split("#")[0] as string;
        if (link === "" || /^[a-z]+:/i.test(link)) continue;
        const target = normalize(join(dirname(doc), link)).replace(/\/$/, "");
        if (!inTarball(target) && ![...files].some((f) => f.startsWith(`${target}/`)))
          dead.push(`${doc}: ${link}`);
      }
    }
    expect(dead).toEqual([]);
  });
});

/** A fresh copy of an example consumer with the tarball as its kube-netsim dependency. */
function consumer(example: string): string {
  const dir = mkdtempSync(join(CACHE, `${example}-`));
  cpSync(join(ROOT, "examples", example), dir, {
    recursive: true,
    filter: (src) => !src.includes("node_modules"),
  });
  const pkgPath = join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as {
    devDependencies: Record<string, string>;
  };
  expect(pkg.devDependencies["kube-netsim"]).toBeDefined();
  pkg.devDependencies["kube-netsim"] = `file:${packed.tarball}`;
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  installModules(example, dir);
  return dir;
}

/**
 * `npm install` in the consumer, or, when an earlier run installed the same tarball for the same
 * package.json, a link to the node_modules it left in the cache (installed once, then moved
 * there; a concurrent run that got there first wins).
 */
function installModules(example: string, dir: string): void {
  const install = () => {
    const r = mustRun("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], dir);
    timings[`${example} install`] = r.seconds;
  };
  if (process.env["KUBE_NETSIM_PACKAGE_FRESH"] === "1") return install();
  const key = createHash("sha256")
    .update(readFileSync(packed.tarball))
    .update(readFileSync(join(dir, "package.json")))
    .digest("hex")
    .slice(0, 16);
  const cached = join(CACHE, `modules-${example}-${key}`);
  if (!existsSync(join(cached, "node_modules"))) {
    install();
    const staging = mkdtempSync(join(CACHE, `staging-${example}-`));
    renameSync(join(dir, "node_modules"), join(staging, "node_modules"));
    try {
      renameSync(staging, cached);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  } else {
    timings[`${example} install`] = 0;
    const now = new Date();
    utimesSync(cached, now, now);
  }
  symlinkSync(join(cached, "node_modules"), join(dir, "node_modules"), "dir");
}

/** `npm test` twice: the first run has an empty jest cache (cold), the second a filled one. */
function npmTestTwice(example: string, dir: string): string {
  const cold = run("npm", ["test"], dir);
  if (cold.status !== 0) throw new Error(cold.output);
  const warm = run("npm", ["test"], dir);
  if (warm.status !== 0) throw new Error(warm.output);
  timings[`${example} npm test cold`] = cold.seconds;
  timings[`${example} npm test warm`] = warm.seconds;
  return cold.output;
}

describe("consumer repositories", () => {
  test(
    "a ts-jest config:init CommonJS repo (node10 resolution, no transform config) passes",
    () => {
      const config = readFileSync(join(ROOT, "examples/plugin-repo-cjs/jest.config.js"), "utf8");
      expect(config).not.toMatch(/transformIgnorePatterns|kube-netsim[^/]|moduleNameMapper/);
      const tsconfig = readFileSync(join(ROOT, "examples/plugin-repo-cjs/tsconfig.json"), "utf8");
      expect(tsconfig).toMatch(/"moduleResolution": "node10"/);
      const dir = consumer("plugin-repo-cjs");
      const out = npmTestTwice("plugin-repo-cjs", dir);
      // policy.test.ts (1) and the SCTP conformance suite over the example plugin (5).
      expect(out).toMatch(/Tests:\s+6 passed, 6 total/);
      // The subpath typings resolve under node10 (ts-jest type-checks only what tests import).
      mustRun("npx", ["tsc", "--noEmit", "-p", "."], dir);
      // Plain Node's require() of every entry point (no jest in between).
      const loaded = mustRun(
        "node",
        [
          "-e",
          'const k = require("kube-netsim"); const t = require("kube-netsim/testing"); const j = require("kube-netsim/jest"); console.log([typeof k.loadCluster, typeof t.cluster, typeof j.matchers.toAllow].join(" "))',
        ],
        dir,
      );
      expect(loaded.output).toContain("function function function");
      rmSync(dir, { recursive: true, force: true });
    },
    TIMEOUT,
  );

  test(
    "a native-ESM jest repo, with a node:test file, passes",
    () => {
      const dir = consumer("plugin-repo-esm");
      const out = npmTestTwice("plugin-repo-esm", dir);
      expect(out).toMatch(/Tests:\s+1 passed, 1 total/);
      expect(out).toMatch(/# pass 1\b/);
      expect(out).toMatch(/# fail 0\b/);
      rmSync(dir, { recursive: true, force: true });
    },
    TIMEOUT,
  );
});

/** A CLI run's parts, each separately. */
function runCli(
  bin: readonly string[],
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
) {
  const r = spawnSync(bin[0] as string, [...bin.slice(1), ...args], {
    cwd,
    env: { ...childEnv(), KUBE_NETSIM_FROM_SOURCE: undefined, ...env },
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the installed CLI", () => {
  test(
    "runs the bundle the tarball ships, with its code caches in the user's cache directory (or none), and prints what the clone's CLI prints",
    () => {
      const key = readFileSync(join(unpacked, "package/dist/cli/key.txt"), "utf8").trim();
      expect(key).toMatch(/^0\.1\.0-[0-9a-f]{16}$/);
      const dir = consumer("plugin-repo-esm");
      const home = mkdtempSync(join(CACHE, "cli-home-"));
      try {
        const installed = [join(dir, "node_modules/.bin/kube-netsim")];
        const clone = [process.execPath, join(ROOT, "bin/kube-netsim.js")];
        const userCache = { XDG_CACHE_HOME: join(home, "cache") };
        const example = (f: string) => join(ROOT, "examples/sctp-service", f);
        const lines = [
          ["--version"],
          ["validate", "-f", example("cluster.yaml")],
          [
            "render",
            "iptables",
            "-f",
            example("cluster.yaml"),
            "--node-env",
            example("node.yaml"),
            "--proxy-config",
            example("proxy.yaml"),
          ],
        ];
        const codeCaches = join(
          home,
          "cache",
          "kube-netsim",
          `cli-${key}-node${process.versions.node}-${process.arch}`,
        );
        for (const args of lines) {
          const expected = runCli(clone, args, ROOT, {});
          expect(expected).toMatchObject({ status: 0, stderr: "" });
          expect(expected.stdout).not.toBe("");
          // The first run writes the code caches, the second uses them.
          expect(runCli(installed, args, dir, userCache)).toEqual(expected);
          expect(runCli(installed, args, dir, userCache)).toEqual(expected);
          // No writable cache directory: the same, silently.
          const noCache = { XDG_CACHE_HOME: join(dir, "package.json", "cache") };
          expect(runCli(installed, args, dir, noCache)).toEqual(expected);
        }
        // The shipped bundle ran (dist/esm writes no code cache), and nothing else is there.
        expect(readdirSync(join(home, "cache", "kube-netsim"))).toEqual([
          `cli-${key}-node${process.versions.node}-${process.arch}`,
        ]);
        expect(readdirSync(codeCaches)).toContain("main.v8");
        expect(
          readdirSync(codeCaches).filter((f) => !/^(main|chunk-[0-9A-Z]+)\.v8$/.test(f)),
        ).toEqual([]);
        // Node's built-in modules are deferred in the shipped bundle as in the clone's.
        const probe = join(home, "loaded.cjs");
        writeFileSync(
          probe,
          'process.on("exit", () => process.stderr.write(JSON.stringify(process.moduleLoadList)));\n',
        );
        const bin = join(dir, "node_modules/kube-netsim/bin/kube-netsim.js");
        const probed = runCli([process.execPath, "--require", probe, bin], ["--version"], dir, {
          XDG_CACHE_HOME: join(home, "probe-cache"),
        });
        expect(probed.stdout).toBe("0.1.0\n");
        const loaded = (JSON.parse(probed.stderr) as string[]).map((m) =>
          m.replace(/^NativeModule /, ""),
        );
        expect(loaded).toContain("vm");
        for (const m of ["child_process", "crypto", "os", "repl", "readline"])
          expect(loaded).not.toContain(m);
        const npx = runCli(["npx", "kube-netsim"], ["--version"], dir, userCache);
        expect(npx).toEqual({ status: 0, stdout: "0.1.0\n", stderr: "" });
      } finally {
        rmSync(home, { recursive: true, force: true });
        rmSync(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );
});

afterAll(() => {
  if (unpacked !== undefined) rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  if (existsSync(CACHE))
    writeFileSync(join(CACHE, "timings.json"), `${JSON.stringify(timings, null, 2)}\n`);
});
