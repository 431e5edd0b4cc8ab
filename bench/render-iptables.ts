/**
 * `kube-netsim render iptables` as a user runs it (the built CLI, a process of its own): N
 * Services × 10 endpoints from YAML (one Service and one EndpointSlice document each, every 4th
 * a NodePort; 10,000 is ~12 MB in 20,000 documents) for a NodeEnvironment, restore text written
 * to a file. The baseline, in the same run, is `iptables-restore --test` of that same text in a
 * scratch network namespace (skipped with the reason where it cannot run); a second baseline
 * column runs the other iptables variant on the same text (`iptables-legacy-restore --test`
 * where the default `iptables-restore` is nf_tables, `iptables-nft-restore --test` where it is
 * legacy), when installed, so both ratios are shown. Prints CPU time
 * (user + system; comparable on a busy machine, where wall time is not), wall time and peak RSS
 * of each (the CLI: median of 3 runs), and the CPU ratio. `--save` adds a row for
 * `--format save` (the canonical iptables-save form).
 *   npx tsx bench/render-iptables.ts [services...]   (default: 1000 10000)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetns, deleteNetns, kernelSkipReason } from "../src/backends/netns.js";
import { cliArgv, gnuTimeMissing, measure, medianOf, type Run } from "./lib/measure.js";
import { NODE_ENV_YAML, servicesYaml } from "./lib/fixtures.js";

const root = join(import.meta.dirname, "..");
const missing = gnuTimeMissing();
if (missing !== undefined) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}
const withSave = process.argv.includes("--save");
/** The variant the default iptables-restore is not (`iptables-restore v1.8.9 (nf_tables)`). */
const defaultVersion =
  spawnSync("iptables-restore", ["--version"], { encoding: "utf8" }).stdout ?? "";
const otherTool = defaultVersion.includes("nf_tables")
  ? "iptables-legacy-restore"
  : "iptables-nft-restore";
const sizes = process.argv
  .slice(2)
  .filter((a) => !a.startsWith("--"))
  .map(Number);
const cli = cliArgv(root);
const dir = mkdtempSync(join(tmpdir(), "kns-bench-render-"));
const nodeEnv = join(dir, "node.yaml");
writeFileSync(nodeEnv, NODE_ENV_YAML);

/** `TOOL --test < file` (TOOL: iptables-restore by default) in a scratch namespace, or why it cannot run. */
function restoreTest(file: string, tool = "iptables-restore"): Run | string {
  const reason = kernelSkipReason(["root", "ip", "iptables"]);
  if (reason !== undefined) return `skipped: ${reason}`;
  if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0)
    return `skipped: ${tool} not installed`;
  const ns = createNetns("kns-kpb");
  try {
    const r = measure(["ip", "netns", "exec", ns.name, "bash", "-c", `${tool} --test < ${file}`]);
    return r.status === 0 ? r : `failed: ${r.stderr.slice(0, 200)}`;
  } finally {
    deleteNetns(ns);
  }
}

console.log(
  [
    "services",
    "format",
    "cli_cpu_ms",
    "cli_wall_ms",
    "cli_peak_rss_mb",
    "restore_test_cpu_ms",
    "restore_test_peak_rss_mb",
    "cpu_ratio",
    `${otherTool.replace("iptables-", "").replace("-restore", "")}_test_cpu_ms`,
    `${otherTool.replace("iptables-", "").replace("-restore", "")}_cpu_ratio`,
  ].join("\t"),
);
try {
  for (const n of sizes.length > 0 ? sizes : [1000, 10000]) {
    const manifests = join(dir, `services-${n}.yaml`);
    writeFileSync(manifests, servicesYaml(n));
    const out = join(dir, `services-${n}.rules`);
    const args = ["render", "iptables", "-f", manifests, "--node-env", nodeEnv];
    const r = medianOf(3, () => measure([...cli, ...args], out));
    if (r.status !== 0) throw new Error(`render iptables: exit ${r.status}\n${r.stderr}`);
    const base = restoreTest(out);
    const other = restoreTest(out, otherTool);
    const row = (format: string, run: Run): string =>
      [
        n,
        format,
        run.cpuMs.toFixed(0),
        run.wallMs.toFixed(0),
        run.peakRssMb.toFixed(0),
        ...(typeof base === "string"
          ? [base, "-", "-"]
          : [
              base.cpuMs.toFixed(0),
              base.peakRssMb.toFixed(0),
              (run.cpuMs / base.cpuMs).toFixed(3),
            ]),
        ...(typeof other === "string"
          ? [other, "-"]
          : [other.cpuMs.toFixed(0), (run.cpuMs / other.cpuMs).toFixed(3)]),
      ].join("\t");
    console.log(row("restore", r));
    if (withSave) {
      const s = medianOf(3, () => measure([...cli, ...args, "--format", "save"]));
      if (s.status !== 0) throw new Error(`render iptables --format save: exit ${s.status}`);
      console.log(row("save", s));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
