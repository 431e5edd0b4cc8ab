/**
 * Our package as a user receives it: `npm pack` of the repository (which builds dist/ in its
 * prepack script), made in a staging copy so the worktree's own files are never touched. The
 * tarball is cached under the OS temp dir by a hash of everything that goes into it, and npm's
 * download cache lives there too, so a second run only installs.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

export const ROOT = join(__dirname, "../..");
export const CACHE = join(tmpdir(), "kube-netsim-package-tests");
export const NPM_CACHE = join(CACHE, "npm-cache");

/**
 * What `npm pack` reads: package.json's `files`, the build's inputs (scripts/ builds the CLI's
 * bundle), the always-shipped files.
 */
const INPUTS = [
  "package.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "tsconfig.build-cjs.json",
  "README.md",
  "LICENSE",
  "DEVELOPERS.md",
  "bin",
  "scripts",
  "src",
  "docs",
  "examples",
];

function listFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((n) => n !== "node_modules")
    .sort()
    .flatMap((n) => listFiles(join(path, n)));
}

function inputsHash(): string {
  const h = createHash("sha256");
  h.update(process.version);
  for (const input of INPUTS)
    for (const f of listFiles(join(ROOT, input))) {
      h.update(relative(ROOT, f));
      h.update("\0");
      h.update(readFileSync(f));
      h.update("\0");
    }
  return h.digest("hex").slice(0, 16);
}

/** The environment for child npm/node processes: ours without the parent npm's settings. */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.toLowerCase().startsWith("npm_") && k !== "INIT_CWD" && k !== "NODE_OPTIONS") env[k] = v;
  return { ...env, npm_config_cache: NPM_CACHE, npm_config_update_notifier: "false" };
}

export interface Run {
  readonly status: number | null;
  readonly output: string;
  readonly seconds: number;
}

export function run(cmd: string, args: readonly string[], cwd: string): Run {
  const start = process.hrtime.bigint();
  const r: SpawnSyncReturns<string> = spawnSync(cmd, args, {
    cwd,
    env: childEnv(),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const output = `$ ${cmd} ${args.join(" ")} (in ${cwd})\n${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}`;
  return { status: r.status, output, seconds };
}

/** Throws with the command's whole output when it fails. */
export function mustRun(cmd: string, args: readonly string[], cwd: string): Run {
  const r = run(cmd, args, cwd);
  if (r.status !== 0) throw new Error(`exit ${String(r.status)}\n${r.output}`);
  return r;
}

/**
 * Tarballs of earlier sources, and consumers' node_modules installed from them (`modules-`, see
 * consumers.test.ts; touched on each use), unused for an hour are removed.
 */
function removeStalePacks(keep: string): void {
  const hourAgo = Date.now() - 60 * 60 * 1000;
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    const stale = name.startsWith("pack-") || name.startsWith("modules-");
    if (stale && path !== keep && statSync(path).mtimeMs < hourAgo)
      rmSync(path, { recursive: true, force: true });
  }
}

export interface Packed {
  readonly tarball: string;
  /** Seconds `npm pack` took, or 0 when the cached tarball was used. */
  readonly seconds: number;
}

export function packTarball(): Packed {
  const dir = join(CACHE, `pack-${inputsHash()}`);
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
  const tarball = join(dir, `${pkg.name}-${pkg.version}.tgz`);
  if (existsSync(tarball)) {
    const now = new Date();
    utimesSync(dir, now, now);
    return { tarball, seconds: 0 };
  }
  const stage = join(dir, "stage");
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const input of INPUTS)
    if (existsSync(join(ROOT, input)))
      cpSync(join(ROOT, input), join(stage, input), {
        recursive: true,
        filter: (src) => !src.split(/[\\/]/).includes("node_modules"),
      });
  // The build's compiler comes from the repository's own install.
  symlinkSync(join(ROOT, "node_modules"), join(stage, "node_modules"), "dir");
  const r = mustRun("npm", ["pack", "--pack-destination", dir, "--silent"], stage);
  rmSync(stage, { recursive: true, force: true });
  if (!existsSync(tarball)) throw new Error(`npm pack made no ${tarball}\n${r.output}`);
  removeStalePacks(dir);
  return { tarball, seconds: r.seconds };
}
