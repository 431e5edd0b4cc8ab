/**
 * fast-check and expect are optional peer dependencies (package.json): a user who installs the
 * package for its CLI or its library root has neither. So no module the CLI's entry or the
 * library root loads up front may import them; the conformance command loads the property suites
 * (which need fast-check) only when one runs (src/testing/conformance/run-suites.ts). An
 * `import type` is erased and an `import()` runs later: only static value imports count, and the
 * `import()`s of src/cli/ itself, through which the CLI's entry loads the command a line names
 * (src/cli/lazy-commands.ts) before it runs it.
 */
import { describe, expect, it } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ROOT = join(__dirname, "..", "..");
const OPTIONAL_PEERS = ["fast-check", "expect", "@jest/globals"];

/** `import … from "x"`, `export … from "x"` and `import "x"`, but not `import type`/`export type`. */
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\s)(?:[^;"']*?\sfrom\s+)?["']([^"']+)["']/gm;

/** `import("./x.js")` with a literal relative path. */
const DYNAMIC_IMPORT = /\bimport\(\s*["'](\.[^"']+)["']\s*\)/g;
const CLI_DIR = join(ROOT, "src", "cli");

/**
 * Every source file the entry loads through static imports (and src/cli/'s own `import()`s),
 * and the packages they import.
 */
function staticClosure(entry: string): { files: Set<string>; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const todo = [join(ROOT, entry)];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(file, "utf8");
    const imports = [...text.matchAll(STATIC_IMPORT)];
    if (file.startsWith(CLI_DIR)) imports.push(...text.matchAll(DYNAMIC_IMPORT));
    for (const m of imports) {
      const spec = m[1]!;
      if (spec.startsWith(".")) {
        const ts = join(dirname(file), spec.replace(/\.js$/, ".ts"));
        const target = existsSync(ts) ? ts : join(dirname(file), spec, "index.ts");
        todo.push(target);
      } else if (!spec.startsWith("node:")) {
        const name = spec.startsWith("@")
          ? spec.split("/").slice(0, 2).join("/")
          : spec.split("/")[0]!;
        packages.set(name, relative(ROOT, file));
      }
    }
  }
  return { files, packages };
}

describe.each(["src/cli/main.ts", "src/index.ts"])("%s", (entry) => {
  it("loads no optional peer dependency up front", () => {
    const { files, packages } = staticClosure(entry);
    expect(files.size).toBeGreaterThan(20);
    // The walk sees the dependencies the entry does use.
    expect(packages.has("yaml") || packages.has("immer")).toBe(true);
    const peers = OPTIONAL_PEERS.filter((p) => packages.has(p)).map(
      (p) => `${p} (${packages.get(p)})`,
    );
    expect(peers).toEqual([]);
  });
});
