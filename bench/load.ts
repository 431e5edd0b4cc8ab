/**
 * Loading, as a user runs it: `kube-netsim validate -f FILE` (the built CLI, a process of its
 * own) on N Services × 10 endpoints (one Service and one EndpointSlice document each; 10,000
 * is ~12 MB in 20,000 documents), against a baseline in the same run: a node process that only
 * parses the same file with js-yaml (the fastest YAML parser on npm; the loader's subset reader
 * reads what it can without it, see docs/model.md). Prints CPU time, wall
 * time and peak RSS of each (median of 3 runs), the ratio, and peak RSS over the file size.
 * A second row loads the same file with one invalid field in its last document: the price of a
 * positioned error.
 *   npx tsx bench/load.ts [services...]   (default: 10000)
 */
import { createRequire } from "node:module";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliArgv, gnuTimeMissing, measure, medianOf } from "./lib/measure.js";
import { servicesYaml } from "./lib/fixtures.js";

const root = join(import.meta.dirname, "..");
const missing = gnuTimeMissing();
if (missing !== undefined) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}
const sizes = process.argv
  .slice(2)
  .filter((a) => !a.startsWith("--"))
  .map(Number);
const dir = mkdtempSync(join(tmpdir(), "kns-bench-load-"));
const cli = cliArgv(root);
const parseOnly = [
  process.execPath,
  "-e",
  `require(${JSON.stringify(createRequire(import.meta.url).resolve("js-yaml"))}).loadAll(require("fs").readFileSync(process.argv[1], "utf8"))`,
];

console.log(
  [
    "services",
    "input_mb",
    "case",
    "cpu_ms",
    "wall_ms",
    "peak_rss_mb",
    "rss_over_input",
    "baseline_cpu_ms",
    "cpu_ratio",
  ].join("\t"),
);
try {
  for (const n of sizes.length > 0 ? sizes : [10000]) {
    const text = servicesYaml(n);
    const file = join(dir, `services-${n}.yaml`);
    writeFileSync(file, text);
    const bad = join(dir, `services-${n}-invalid.yaml`);
    writeFileSync(
      bad,
      `${text}---\napiVersion: v1\nkind: Service\nmetadata: {name: bad}\nspec:\n  ports: [{port: 0}]\n`,
    );
    const mb = statSync(file).size / 1e6;
    const base = medianOf(3, () => measure([...parseOnly, file]));
    for (const [name, f, expected] of [
      ["valid", file, 0],
      ["one error", bad, 2],
    ] as const) {
      const r = medianOf(3, () => measure([...cli, "validate", "-f", f]));
      if (r.status !== expected)
        throw new Error(`validate ${name}: exit ${r.status}, expected ${expected}\n${r.stderr}`);
      console.log(
        [
          n,
          mb.toFixed(1),
          name,
          r.cpuMs.toFixed(0),
          r.wallMs.toFixed(0),
          r.peakRssMb.toFixed(0),
          (r.peakRssMb / mb).toFixed(1),
          base.cpuMs.toFixed(0),
          (r.cpuMs / base.cpuMs).toFixed(2),
        ].join("\t"),
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
