/**
 * The layers of DEVELOPERS.md "Where things are", held true: a folder of src/ imports only
 * folders listed below it here (data flows one way: YAML → model → generators → netfilter data →
 * tracer/backends → verdicts → printers). A new top-level folder must be given its place.
 */
import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const SRC = join(__dirname, "..", "src");

/** Lowest first; a folder may import those of a lower rank only. */
const RANK: Readonly<Record<string, number>> = {
  util: 0,
  net: 0,
  issue: 0,
  model: 1,
  netfilter: 2,
  policy: 2,
  proxiers: 3,
  hostports: 4,
  node: 5,
  jest: 6,
  backends: 6,
  testing: 7,
  report: 7,
  repl: 8,
  cli: 9,
  // src/index.ts, the front door.
  ".": 10,
};

const IMPORT = /(?:from\s+|import\()["'](\.{1,2}\/[^"']+)["']/g;

/** Each `from` folder → `to` folder import found in the sources, with one file that does it. */
function folderImports(): Map<string, string> {
  const edges = new Map<string, string>();
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".ts"),
  );
  for (const file of files) {
    const from = file.includes("/") ? file.slice(0, file.indexOf("/")) : ".";
    for (const m of readFileSync(join(SRC, file), "utf8").matchAll(IMPORT)) {
      const target = relative(SRC, normalize(join(SRC, dirname(file), m[1]!)));
      const to = target.includes("/") ? target.slice(0, target.indexOf("/")) : ".";
      if (to !== from && !target.startsWith("..")) edges.set(`${from} → ${to}`, file);
    }
  }
  return edges;
}

describe("layers", () => {
  const edges = folderImports();

  it("every top-level folder of src/ has a rank", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(5);
    expect(folders.filter((f) => RANK[f] === undefined)).toEqual([]);
  });

  it("no folder imports one of its own rank or above", () => {
    expect(edges.size).toBeGreaterThan(10);
    const upward = [...edges]
      .filter(([edge]) => {
        const [from, to] = edge.split(" → ") as [string, string];
        return (RANK[to] ?? Infinity) >= (RANK[from] ?? -Infinity);
      })
      .map(([edge, file]) => `${edge} (${file})`);
    expect(upward).toEqual([]);
  });
});
