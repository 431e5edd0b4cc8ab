#!/usr/bin/env node
// Launcher. It runs the CLI as a bundle: the sources and their dependencies bundled by esbuild
// (scripts/cli-bundle.js) into CommonJS pieces split at each command's `import()`, each compiled
// through `vm.Script` with V8's code cache (`NAME.v8`, written by the first run that loads it):
// a later start skips parsing and compiling them (Node 20 has no compile cache for ES modules;
// `module.enableCompileCache` is Node 22). Loading a few bundled files (dependencies included)
// costs a fraction of loading ~380 modules one by one (bench/load.ts measures the whole command).
// - In a clone (src/ present) it bundles the TypeScript sources, so the CLI is never a stale
//   build: cached under node_modules/.cache/kube-netsim/cli-KEY with the code caches beside it,
//   keyed by every source file's path, size and mtime, so an edit (or another `npm ci`) rebuilds
//   it at the next run. Without esbuild, or with KUBE_NETSIM_FROM_SOURCE=1 (source-mapped stack
//   traces while developing), it runs the sources through tsx.
// - In the installed package (no src/, no esbuild) it runs the bundle `npm pack` built into
//   dist/cli (prepack), with the code caches in the user's cache directory
//   ($XDG_CACHE_HOME/kube-netsim, else ~/.cache/kube-netsim; one directory per build of the
//   bundle, Node version and flags), or without them when that is not writable. Without
//   dist/cli it runs the compiled ES modules in dist/esm.
//
// Every start pays what this file does before the command runs, so it does little (docs in
// DEVELOPERS.md, "CLI start-up"): it is CommonJS (bin/package.json), since loading Node's ES
// module loader for the launcher alone cost ~10 ms; the clone's key is a plain JavaScript hash
// (node:crypto cost ~10 ms to load); the bundle is whitespace-minified ASCII, read as latin1 and
// already wrapped as a function by esbuild (no 2 MB string copied); and Node's built-in modules
// that Node does not load by itself (child_process, crypto, net, dgram, os, repl, ...) are loaded
// on their first use, not when the bundle starts: `--version` and `validate` need none of them.
"use strict";
const {
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require("node:fs");
const { createRequire } = require("node:module");
const { dirname, isAbsolute, join } = require("node:path");
const { pathToFileURL } = require("node:url");
const vm = require("node:vm");

const root = join(__dirname, "..");
const source = join(root, "src", "cli", "main.ts");
const built = join(root, "dist", "esm", "cli", "main.js");
const packed = join(root, "dist", "cli");
const builder = join(root, "scripts", "cli-bundle.js");

/** Every file under `dir`, as `dir/…/name`. */
function filesUnder(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) filesUnder(`${dir}/${e.name}`, out);
    else if (e.isFile()) out.push(`${dir}/${e.name}`);
  return out;
}

/**
 * What the bundle is made of: each source file's path, size and mtime, and those of this
 * launcher and of the build script (the build options) and of the installed dependencies' lock
 * (they are bundled). The bundle's directory is named by a hash of the numbers and the paths'
 * lengths (a loop over ~400 files, not over the 30 KB text, which cost several ms in JavaScript,
 * and node:crypto ~10 ms to load), and holds the whole text in `key.txt`, compared at each start.
 * The cost left is the ~400 `stat` calls.
 */
function sourceState() {
  const files = filesUnder(join(root, "src"), []).sort();
  files.push(
    join(root, "package.json"),
    __filename,
    builder,
    join(root, "node_modules", ".package-lock.json"),
  );
  let text = "";
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (const f of files) {
    const s = statSync(f, { throwIfNoEntry: false });
    if (s === undefined) continue;
    text += `${f}\0${s.size}\0${s.mtimeMs}\n`;
    // mtimeMs in microseconds stays an exact integer (below 2^53) for centuries.
    const micros = Math.floor(s.mtimeMs * 1000);
    for (const word of [f.length, s.size, micros % 0x100000000, Math.floor(micros / 0x100000000)]) {
      a = Math.imul(a ^ word, 0x01000193);
      a ^= a >>> 15;
      b = Math.imul(b ^ word, 0x5bd1e995);
      b ^= b >>> 13;
    }
  }
  const hex = (n) => (n >>> 0).toString(16).padStart(8, "0");
  return { key: hex(a) + hex(b), text };
}

/** The cached bundle of the sources (built now when missing), or undefined when it cannot be. */
async function sourceBundle() {
  if (process.env.KUBE_NETSIM_FROM_SOURCE === "1") return undefined;
  try {
    const cache = join(root, "node_modules", ".cache", "kube-netsim");
    const { key, text } = sourceState();
    const bundle = join(cache, `cli-${key}`);
    const built = readKey(bundle);
    // Another state of the sources with the same hash (never seen): run them through tsx.
    if (built !== undefined) return built === text ? bundle : undefined;
    mkdirSync(cache, { recursive: true });
    // Several runs may build at once (parallel tests): each builds its own directory, then
    // renames it; the first rename wins, and the others use its bundle.
    const tmp = `${bundle}.${process.pid}.tmp`;
    const { buildBundle } = await import(pathToFileURL(builder).href);
    await buildBundle(tmp);
    writeFileSync(join(tmp, "key.txt"), text);
    try {
      renameSync(tmp, bundle);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (readKey(bundle) !== text) throw e;
    }
    // Bundles (and code caches) of older sources go. A run still using one loaded its files'
    // descriptors at start (`openBundle`), so it can still load a chunk it had not needed yet.
    for (const old of readdirSync(cache))
      if (/^cli-[0-9a-f]+(\.(mjs|cjs|v8))?$/.test(old) && join(cache, old) !== bundle)
        rmSync(join(cache, old), { recursive: true, force: true });
    return bundle;
  } catch {
    return undefined; // no esbuild, or a read-only clone: run the sources through tsx
  }
}

async function sourceLoader() {
  try {
    return await import("tsx/esm/api");
  } catch {
    return undefined; // no tsx: a production install of a clone; use the build
  }
}

/**
 * Runs the bundle in `dir` as `require` would run its files, each compiled with V8's code cache
 * (`NAME.v8` in `cacheDir`: the bundle's own directory in a clone, the user's cache directory for
 * the installed package's bundle, none when there is no place for it) when there is one. Each
 * file is opened at start (a descriptor stays readable when a newer build removes the directory)
 * and read and compiled only when first required.
 */
function runBundle(dir, cacheDir) {
  const files = new Map();
  const caches = new Set();
  for (const name of readdirSync(dir))
    if (name.endsWith(".js")) files.set(name, openSync(join(dir, name), "r"));
    else if (name.endsWith(".v8") && cacheDir === dir) caches.add(name);
  // Whether `cacheDir` exists: the user's is made at the first cache written.
  let cacheReady = cacheDir === dir;
  if (cacheDir !== undefined && !cacheReady)
    try {
      for (const name of readdirSync(cacheDir)) if (name.endsWith(".v8")) caches.add(name);
      cacheReady = true;
    } catch {
      // not made yet (or not readable: the first write then fails too)
    }
  const nodeRequire = createRequire(join(dir, "main.js"));
  const modules = new Map();
  /** The exports of the bundle's file `./NAME`, run at its first require (cycles as Node's). */
  function load(name) {
    const known = modules.get(name);
    if (known !== undefined) return known.exports;
    const fd = files.get(name);
    if (fd === undefined) throw new Error(`kube-netsim: ${name} is not in the bundle ${dir}`);
    const file = join(dir, name);
    const cacheName = name.replace(/\.js$/, ".v8");
    const cachedData =
      cacheDir !== undefined && caches.has(cacheName)
        ? readCache(join(cacheDir, cacheName))
        : undefined;
    const script = new vm.Script(readFileSync(fd, "latin1"), { filename: file, cachedData });
    const module = { exports: {}, filename: file, id: file, loaded: false };
    modules.set(name, module);
    const require = (spec) => (spec.startsWith("./") ? load(spec.slice(2)) : nodeRequire(spec));
    script.runInThisContext()(module.exports, require, module, file, dir);
    module.loaded = true;
    if (cacheDir !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
      // Written once the file's top level has run: the cache then holds the functions a start
      // compiles (module initialisation, the command tree), and no more, so a later run does
      // not load the functions of whichever command happened to run first.
      try {
        if (!cacheReady) cacheReady = makeUserCacheDir(cacheDir);
        const tmp = `${join(cacheDir, cacheName)}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, join(cacheDir, cacheName));
      } catch {
        // A read-only clone or home, or a newer build removed the directory: run without the
        // caches (not even those already there: the rest of the bundle reads none), and try no
        // more writes in this run.
        cacheDir = undefined;
      }
    }
    return module.exports;
  }
  load("main.js");
}

/** The value of a string as 8 hex digits (FNV-1a; node:crypto costs ~10 ms to load). */
function hash8(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * The directory of the installed bundle's code caches, whose build is `key` (dist/cli/key.txt:
 * the package's version and a hash of the bundle): $XDG_CACHE_HOME/kube-netsim (an absolute
 * one, as the XDG spec says), else ~/.cache/kube-netsim (%LOCALAPPDATA%\kube-netsim on
 * Windows), one directory per build, Node version and architecture, and flags Node runs with
 * (V8 rejects a cache made under other flags). Undefined when there is no such place.
 */
function userCacheDir(key) {
  if (!/^[\w.+-]+$/.test(key)) return undefined;
  const env = process.env;
  let base = env.XDG_CACHE_HOME;
  if (base === undefined || !isAbsolute(base)) {
    const windows = process.platform === "win32";
    const home = windows ? env.LOCALAPPDATA : env.HOME;
    if (home === undefined || !isAbsolute(home)) return undefined;
    base = windows ? home : join(home, ".cache");
  }
  let name = `cli-${key}-node${process.versions.node}-${process.arch}`;
  const flags = [...process.execArgv, env.NODE_OPTIONS ?? ""].join("\0");
  if (flags !== "") name += `-${hash8(flags)}`;
  return join(base, "kube-netsim", name);
}

/**
 * Makes directory `dir` and its missing parents; true when it made `dir`, false when it was there;
 * throws when it cannot. (`mkdirSync`'s `recursive` loops for ever where mkdir says ENOENT under
 * a parent that exists, as in /proc.)
 */
function makeDirs(dir) {
  try {
    mkdirSync(dir);
    return true;
  } catch (e) {
    if (e.code === "EEXIST") return false;
    const parent = dirname(dir);
    if (e.code !== "ENOENT" || parent === dir) throw e;
  }
  makeDirs(dirname(dir));
  mkdirSync(dir);
  return true;
}

/**
 * Makes the user's cache directory `dir` (throws when it cannot). When it is new, the caches of
 * other builds, Node versions or flags that no start has made or used for 30 days go (a
 * directory's mtime changes when a cache is written in it).
 */
function makeUserCacheDir(dir) {
  if (!makeDirs(dir)) return true; // there already
  try {
    const parent = dirname(dir);
    const monthAgo = Date.now() - 30 * 24 * 60 * 60 * 1000;
    for (const name of readdirSync(parent)) {
      const path = join(parent, name);
      if (name.startsWith("cli-") && path !== dir && statSync(path).mtimeMs < monthAgo)
        rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // another start removed one meanwhile: nothing to do
  }
  return true;
}

/** The text of a bundle directory's `key.txt` (a clone's source state, a packed bundle's build), if it is there. */
function readKey(dir) {
  try {
    return readFileSync(join(dir, "key.txt"), "utf8");
  } catch {
    return undefined;
  }
}

function readCache(path) {
  try {
    return readFileSync(path);
  } catch {
    return undefined; // removed by a newer build meanwhile
  }
}

/**
 * A script compiled by `vm` has no module loader of its own (and Node 20's default-loader option
 * for it is experimental and lost with the code cache): the bundle imports a user's module
 * (`conformance --adapter file.js`) through this one (src/util/import-module.ts).
 */
function runWithImport(dir, cacheDir) {
  globalThis[Symbol.for("kube-netsim.import")] = (url) => import(url);
  runBundle(dir, cacheDir);
}

async function main() {
  const clone = existsSync(source);
  if (clone) {
    const bundle = await sourceBundle();
    if (bundle !== undefined) return runWithImport(bundle, bundle);
  } else {
    // The installed package: the bundle `npm pack` built, when it did.
    const key = readKey(packed);
    if (key !== undefined) return runWithImport(packed, userCacheDir(key.trim()));
  }
  const tsx = clone ? await sourceLoader() : undefined;
  if (tsx) {
    tsx.register();
    await import(pathToFileURL(source).href);
  } else if (existsSync(built)) {
    await import(pathToFileURL(built).href);
  } else {
    process.stderr.write(
      "kube-netsim: dist/ is not built; run `npm run build` (or `npm ci` in a clone)\n",
    );
    process.exit(2);
  }
}

void main();
