// The CLI's bundle: src/cli/main.ts and everything it imports (dependencies included), split by
// esbuild at each `import()` (src/cli/lazy-commands.ts loads each command so) into `main.js` and
// `chunk-*.js`, each a CommonJS function that bin/kube-netsim.js compiles through `vm.Script`
// with V8's code cache (DEVELOPERS.md, "CLI start-up"). Two builds use it:
// - in a clone, the launcher builds the bundle of the current sources into
//   node_modules/.cache/kube-netsim/cli-KEY at the first run after a change (`buildBundle`);
// - `npm pack` (prepack: `npm run build:cli`, this file run as a script) builds the same pieces
//   into dist/cli for the installed package, which has neither src/ nor esbuild (a
//   devDependency), with `key.txt` (version and a hash of the pieces: it names the user's
//   code-cache directory) and THIRD-PARTY-LICENSES.txt (the bundled dependencies' licenses).
import { createHash } from "node:crypto";
import { builtinModules, createRequire } from "node:module";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src", "cli", "main.ts");

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

/** The options both passes share: minified whitespace and syntax, ASCII. */
const TEXT_OPTIONS = {
  // Fewer bytes to read and keep, and no comments (the text is then ASCII: `charset`). Names
  // are kept (identifiers are not minified), so a programmer error's stack still names its
  // functions; KUBE_NETSIM_FROM_SOURCE=1 gives source lines in a clone.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  charset: "ascii",
  logLevel: "silent",
};

/**
 * Bundles the sources into `dir` (which must not exist): esbuild splits them at each `import()`
 * into an entry `main.js` and chunks, as ES modules, then each file becomes a CommonJS function
 * (`require` of a sibling chunk is the launcher's, see its `runBundle`). `external`: packages
 * left to `require` at run time (the packed bundle's optional peer dependencies). Returns the
 * bundled files' paths (esbuild's metafile inputs).
 */
export async function buildBundle(dir, { external = [] } = {}) {
  const { build, transform } = await import("esbuild");
  const { outputFiles, metafile } = await build({
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
    external,
    metafile: true,
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
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(code)) throw new Error("the bundle is not ASCII");
    writeFileSync(file.path, code, "latin1");
  }
  return Object.keys(metafile.inputs);
}

/** The bundled packages (name → directory), from the bundle's input paths. */
function bundledPackages(inputs) {
  const packages = new Map();
  for (const input of inputs) {
    const m = /(^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m === null) continue;
    const dir = join(root, input.slice(0, m.index + m[0].length));
    packages.set(m[2], dir);
  }
  return [...packages].sort(([a], [b]) => a.localeCompare(b));
}

/** The text of THIRD-PARTY-LICENSES.txt: each bundled package's name, version, license and its licence file. */
function thirdPartyLicenses(inputs) {
  let text =
    "The CLI bundle (dist/cli) contains these packages, bundled by esbuild; their licences follow.\n";
  for (const [name, dir] of bundledPackages(inputs)) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    text += `\n${"=".repeat(78)}\n${name}@${pkg.version} (${pkg.license ?? "see below"})\n\n`;
    text +=
      file === undefined
        ? "(no licence file in the package)\n"
        : readFileSync(join(dir, file), "utf8");
  }
  return text;
}

/** Builds dist/cli for the package (run by prepack). */
async function buildPackedBundle() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const out = join(root, "dist", "cli");
  rmSync(out, { recursive: true, force: true });
  if (!existsSync(join(root, "dist"))) mkdirSync(join(root, "dist"));
  // The optional peer dependencies are left out, as dist/esm leaves them: the installed CLI
  // requires fast-check from the user's install, and says so when it is missing.
  const inputs = await buildBundle(out, { external: Object.keys(pkg.peerDependencies ?? {}) });
  const hash = createHash("sha256");
  for (const name of readdirSync(out).sort()) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(out, name)));
  }
  writeFileSync(join(out, "key.txt"), `${pkg.version}-${hash.digest("hex").slice(0, 16)}\n`);
  writeFileSync(join(out, "THIRD-PARTY-LICENSES.txt"), thirdPartyLicenses(inputs));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1])
  await buildPackedBundle();
