#!/usr/bin/env node
// Launcher. In a clone (src/ present) it runs the TypeScript sources, so the CLI is never a stale
// build: bundled into one file with esbuild (installed by `npm ci`, as tsx's own compiler) and
// cached under node_modules/.cache/kube-netsim, keyed by every source file's path, size and
// mtime, so an edit (or another `npm ci`) rebuilds it at the next run. Loading one bundled file
// (dependencies included) costs a fraction of compiling ~380 modules through tsx at every start
// (bench/load.ts measures the whole command). The bundle is CommonJS so that it can be compiled
// through `vm.Script` with V8's code cache beside it (`cli-KEY.v8`, written by the first run):
// a later start skips parsing and compiling the 2 MB bundle (Node 20 has no compile cache for
// ES modules; `module.enableCompileCache` is Node 22).
// Without esbuild, or with KUBE_NETSIM_FROM_SOURCE=1 (source-mapped stack traces while
// developing), it runs the sources through tsx. In the installed package (no src/) it runs the
// compiled ESM build in dist/esm, which `npm pack` (prepack) builds.
//
// Every start pays what this file does before the command runs, so it does little (docs in
// DEVELOPERS.md, "CLI start-up"): it is CommonJS (bin/package.json), since loading Node's ES
// module loader for the launcher alone cost ~10 ms; the key is a plain JavaScript hash
// (node:crypto cost ~10 ms to load); the bundle is whitespace-minified ASCII, read as latin1 and
// already wrapped as a function by esbuild (no 2 MB string copied); and Node's built-in modules
// that Node does not load by itself (child_process, crypto, net, dgram, os, repl, ...) are loaded
// on their first use, not when the bundle starts (`lazyBuiltins`): `--version` and `validate`
// need none of them.
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
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");
const vm = require("node:vm");

const root = join(__dirname, "..");
const source = join(root, "src", "cli", "main.ts");
const built = join(root, "dist", "esm", "cli", "main.js");

/** Every file under `dir`, as `dir/…/name`. */
function filesUnder(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) filesUnder(`${dir}/${e.name}`, out);
    else if (e.isFile()) out.push(`${dir}/${e.name}`);
  return out;
}

/**
 * What the bundle is made of: each source file's path, size and mtime, and those of this
 * launcher (the build options) and of the installed dependencies' lock (they are bundled). The
 * bundle's directory is named by a hash of the numbers and the paths' lengths (a loop over ~400
 * files, not over the 30 KB text, which cost several ms in JavaScript, and node:crypto ~10 ms to
 * load), and holds the whole text in `key.txt`, compared at each start. The cost left is the ~400
 * `stat` calls.
 */
function sourceState() {
  const files = filesUnder(join(root, "src"), []).sort();
  files.push(
    join(root, "package.json"),
    __filename,
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

// The bundle's first and last lines: the file is the function `require` would wrap it in, so
// the launcher compiles it as read (no copy of the 2 MB text).
const WRAP_START = "(function (exports, require, module, __filename, __dirname) {";
const WRAP_END = "\n})";

/** Built-in modules that Node itself has loaded before any user code: no gain in deferring them. */
const PRELOADED = new Set([
  "buffer",
  "events",
  "fs",
  "module",
  "path",
  "process",
  "timers",
  "url",
  "util",
  "vm",
]);

/**
 * An esbuild plugin: a built-in module that Node has not loaded yet is imported as an object
 * with one getter per export, which loads the module at the first use of any of them. An
 * import of `node:repl` or `node:crypto` at a module's top costs nothing until a command calls
 * it (esbuild's CommonJS output reads an imported name at each use, never at import time).
 */
function lazyBuiltins() {
  const { builtinModules } = require("node:module");
  const names = new Set(builtinModules.filter((m) => !m.startsWith("_")));
  return {
    name: "kube-netsim-lazy-builtins",
    setup(build) {
      build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
        const name = args.path.replace(/^node:/, "");
        if (!names.has(name) || PRELOADED.has(name.split("/")[0])) return undefined;
        if (args.namespace === "lazy-builtin") return { path: `node:${name}`, external: true };
        return { path: name, namespace: "lazy-builtin" };
      });
      build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
        const exportNames = Object.getOwnPropertyNames(require(`node:${args.path}`)).filter(
          (n) => n !== "__esModule",
        );
        return {
          loader: "js",
          contents:
            `let real;\n` +
            `const load = () => (real ??= require(${JSON.stringify(`node:${args.path}`)}));\n` +
            `for (const name of ${JSON.stringify(exportNames)})\n` +
            `  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });\n`,
        };
      });
    },
  };
}

/** The options both builds share: minified whitespace and syntax, ASCII, wrapped as a function. */
const TEXT_OPTIONS = {
  // Fewer bytes to read and keep, and no comments (the text is then ASCII: `charset`). Names
  // are kept (identifiers are not minified), so a programmer error's stack still names its
  // functions; KUBE_NETSIM_FROM_SOURCE=1 gives source lines.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  charset: "ascii",
  logLevel: "silent",
};

/**
 * Bundles the sources into `dir`: esbuild splits them at each `import()` (src/cli/lazy-commands.ts
 * loads each command so) into an entry `main.js` and chunks, as ES modules, then each file
 * becomes a CommonJS function (`require` of a sibling chunk is the launcher's, see `runBundle`).
 */
async function buildBundle(dir) {
  const { build, transform } = await import("esbuild");
  const { outputFiles } = await build({
    entryPoints: { main: source },
    outdir: dir,
    write: false,
    // The dependencies too: loading `yaml`'s ~80 CommonJS files one by one costs as much as
    // the whole bundle.
    bundle: true,
    splitting: true,
    chunkNames: "chunk-[hash]",
    platform: "node",
    format: "esm",
    target: "node20",
    plugins: [lazyBuiltins()],
    ...TEXT_OPTIONS,
  });
  mkdirSync(dir);
  for (const file of outputFiles) {
    const { code } = await transform(file.text, {
      format: "cjs",
      target: "node20",
      // `import("./chunk.js")` becomes a `require` of it (vm has no loader for `import()`).
      supported: { "dynamic-import": false },
      // ES modules are strict mode code; a CommonJS function is not unless it says so.
      banner: `${WRAP_START}"use strict";`,
      footer: WRAP_END,
      ...TEXT_OPTIONS,
    });
    // Read back as latin1, which equals the text only when it is ASCII.
    if (/[^\x00-\x7f]/.test(code)) throw new Error("the bundle is not ASCII");
    writeFileSync(file.path, code, "latin1");
  }
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
 * beside it (`NAME.v8`) when there is one. Each file is opened at start (a descriptor stays
 * readable when a newer build removes the directory) and read and compiled only when first
 * required.
 */
function runBundle(dir) {
  const files = new Map();
  const caches = new Set();
  for (const name of readdirSync(dir))
    if (name.endsWith(".js")) files.set(name, openSync(join(dir, name), "r"));
    else if (name.endsWith(".v8")) caches.add(name);
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
    const cachedData = caches.has(cacheName) ? readCache(join(dir, cacheName)) : undefined;
    const script = new vm.Script(readFileSync(fd, "latin1"), { filename: file, cachedData });
    const module = { exports: {}, filename: file, id: file, loaded: false };
    modules.set(name, module);
    const require = (spec) => (spec.startsWith("./") ? load(spec.slice(2)) : nodeRequire(spec));
    script.runInThisContext()(module.exports, require, module, file, dir);
    module.loaded = true;
    if (cachedData === undefined || script.cachedDataRejected) {
      // Written once the file's top level has run: the cache then holds the functions a start
      // compiles (module initialisation, the command tree), and no more, so a later run does
      // not load the functions of whichever command happened to run first.
      try {
        const tmp = `${join(dir, cacheName)}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, join(dir, cacheName));
      } catch {
        // a read-only clone, or a newer build removed the directory: run without the cache
      }
    }
    return module.exports;
  }
  load("main.js");
}

/** The source state a bundle directory was built from (its `key.txt`), if it is there. */
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

async function main() {
  const bundle = existsSync(source) ? await sourceBundle() : undefined;
  if (bundle !== undefined) {
    // A script compiled by `vm` has no module loader of its own (and Node 20's default-loader
    // option for it is experimental and lost with the code cache): the bundle imports a user's
    // module (`conformance --adapter file.js`) through this one (src/util/import-module.ts).
    globalThis[Symbol.for("kube-netsim.import")] = (url) => import(url);
    runBundle(bundle);
    return;
  }
  const tsx = existsSync(source) ? await sourceLoader() : undefined;
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
