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
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import vm from "node:vm";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const source = new URL("../src/cli/main.ts", import.meta.url);
const built = new URL("../dist/esm/cli/main.js", import.meta.url);

/**
 * A hash of what the bundle is made of: each source file's path, size and mtime, and those of
 * this launcher (the build options) and of the installed dependencies' lock (they are bundled).
 */
function sourceKey() {
  const hash = createHash("sha1");
  const files = readdirSync(`${root}src`, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${e.parentPath ?? e.path}/${e.name}`)
    .sort();
  const more = [
    `${root}package.json`,
    fileURLToPath(import.meta.url),
    `${root}node_modules/.package-lock.json`,
  ];
  for (const f of [...files, ...more]) {
    if (!existsSync(f)) continue;
    const s = statSync(f);
    hash.update(`${f}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest("hex").slice(0, 16);
}

/** The cached bundle of the sources (built now when missing), or undefined when it cannot be. */
async function sourceBundle() {
  if (process.env.KUBE_NETSIM_FROM_SOURCE === "1") return undefined;
  try {
    const dir = `${root}node_modules/.cache/kube-netsim`;
    const bundle = `${dir}/cli-${sourceKey()}.cjs`;
    if (existsSync(bundle)) return bundle;
    const { build } = await import("esbuild");
    mkdirSync(dir, { recursive: true });
    // Several runs may build at once (parallel tests): each writes its own file, then renames.
    const tmp = `${bundle}.${process.pid}.tmp`;
    await build({
      entryPoints: [fileURLToPath(source)],
      outfile: tmp,
      // The dependencies too: loading `yaml`'s ~80 CommonJS files one by one costs as much as
      // the whole bundle.
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      logLevel: "silent",
    });
    renameSync(tmp, bundle);
    // Bundles (and code caches) of older sources go (never this one: another run may be using it).
    for (const old of readdirSync(dir))
      if (
        /^cli-[0-9a-f]+\.(mjs|cjs|v8)$/.test(old) &&
        !`${dir}/${old}`.startsWith(bundle.slice(0, -4))
      )
        rmSync(`${dir}/${old}`, { force: true });
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

const bundle = existsSync(source) ? await sourceBundle() : undefined;
const tsx = bundle === undefined && existsSync(source) ? await sourceLoader() : undefined;
/** Runs the CommonJS bundle as `require` would, compiled with V8's code cache when there is one. */
function runBundle(file) {
  const cacheFile = file.replace(/\.cjs$/, ".v8");
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, "utf8").replace(/^#!/, "//")}\n})`,
    {
      filename: file,
      cachedData,
    },
  );
  if (cachedData === undefined || script.cachedDataRejected) {
    // At exit the cache also holds the functions this run compiled (the command's own code).
    process.once("exit", () => {
      try {
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        // a read-only clone: run without the cache
      }
    });
  }
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
}

if (bundle !== undefined) {
  // A script compiled by `vm` has no module loader of its own (and Node 20's default-loader
  // option for it is experimental and lost with the code cache): the bundle imports a user's
  // module (`conformance --adapter file.js`) through this one (src/util/import-module.ts).
  globalThis[Symbol.for("kube-netsim.import")] = (url) => import(url);
  runBundle(bundle);
} else if (tsx) {
  tsx.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    "kube-netsim: dist/ is not built; run `npm run build` (or `npm ci` in a clone)\n",
  );
  process.exit(2);
}
