/**
 * `import(url)` of a user's module (a conformance adapter). In a clone the CLI runs as one bundle
 * compiled through `vm.Script` (bin/kube-netsim.js, for V8's code cache), where `import()` has no
 * module loader: the launcher hands in its own under this symbol. Elsewhere (the installed
 * package, the library, tests) it is the plain `import()`.
 */
const LAUNCHER_IMPORT = Symbol.for("kube-netsim.import");

export function importModule(url: string): Promise<unknown> {
  const launcherImport = (globalThis as Record<symbol, unknown>)[LAUNCHER_IMPORT];
  return typeof launcherImport === "function"
    ? (launcherImport as (u: string) => Promise<unknown>)(url)
    : import(url);
}
