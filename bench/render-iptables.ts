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
 * of each (median of 3 runs, the baselines' too: one `--test` run swung by 40 % between runs),
 * and the CPU and wall-time ratios (wall time: what a user waits; the CLI's garbage collector
 * runs partly on the second core, so its CPU time exceeds its wall time, while `iptables-restore`
 * is single-threaded). `--save` adds a row for
 * `--format save` (the canonical iptables-save form).
 * `--phases` adds, per size, what comes after loading measured in this process (the cluster
 * loaded once, then 5 renders, first and median): CPU ms of planning and writing the rules as
 * restore text as the CLI does (one service port at a time, large tables spilled to a temporary
 * file as when stdout is a file), of handing its bytes out, the garbage collectors' ms over
 * both, the page faults of the first render, and, apart, the CPU ms of the whole plan as the
 * library's data path makes it (`planFamily`; a diagnostic: the whole command above is the
 * measure).
 *   npx tsx bench/render-iptables.ts [services...] [--save] [--phases]   (default: 1000 10000)
 */
import { spawnSync } from "node:child_process";
import { PerformanceObserver } from "node:perf_hooks";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNetns, deleteNetns, kernelSkipReason } from "../src/backends/netns.js";
import { cliArgv, gnuTimeMissing, measure, medianOf, type Run } from "./lib/measure.js";
import { NODE_ENV_YAML, servicesYaml } from "./lib/fixtures.js";
import { loadCluster } from "../src/model/load-files.js";
import { parseNodeEnvironment } from "../src/model/load-node-environment.js";
import { familyPlanSource, planFamily } from "../src/proxiers/common/plan.js";
import { proxierSettings } from "../src/proxiers/common/proxier-settings.js";
import { writeRuleSetFrom } from "../src/proxiers/iptables/render-restore.js";
import { SpillFiles } from "../src/cli/spill-file.js";

const root = join(import.meta.dirname, "..");
const missing = gnuTimeMissing();
if (missing !== undefined) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}
const withSave = process.argv.includes("--save");
const withPhases = process.argv.includes("--phases");
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
    const r = medianOf(3, () =>
      measure(["ip", "netns", "exec", ns.name, "bash", "-c", `${tool} --test < ${file}`]),
    );
    return r.status === 0 ? r : `failed: ${r.stderr.slice(0, 200)}`;
  } finally {
    deleteNetns(ns);
  }
}

/**
 * After loading, in this process: plan and restore text, its bytes (CPU ms each), GC ms and the
 * whole plan apart, for the first of `runs` renders and the median.
 */
async function phases(manifests: string, runs = 5): Promise<string> {
  const cluster = loadCluster([manifests], { validation: "strict", featureGates: {} });
  const node = parseNodeEnvironment(NODE_ENV_YAML, "node.yaml");
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  });
  observer.observe({ entryTypes: ["gc"] });
  const cpuMs = (): number => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const rows: number[][] = [];
  for (let i = 0; i < runs; i++) {
    const gc0 = gcMs;
    const f0 = process.resourceUsage().minorPageFault;
    const t0 = cpuMs();
    const settings = proxierSettings(cluster, "IPv4", { node });
    // As the CLI with stdout a file: text only, one service port at a time, large tables
    // spilled to a temporary file.
    const spills = new SpillFiles();
    const written = writeRuleSetFrom(familyPlanSource(cluster, settings), {}, false, spills.make);
    const t1 = cpuMs();
    let bytes = 0;
    written.writeRestore((b) => (bytes += b.length));
    const t2 = cpuMs();
    spills.close();
    if (bytes === 0) throw new Error("no restore text");
    // GC entries are delivered on a later tick.
    await new Promise((resolve) => setTimeout(resolve, 20));
    rows.push([t1 - t0, t2 - t1, gcMs - gc0, 0, process.resourceUsage().minorPageFault - f0]);
  }
  // The whole plan, as the library's data path makes it, after the renders (its garbage is not
  // theirs).
  for (const row of rows) {
    const p0 = cpuMs();
    const plan = planFamily(cluster, proxierSettings(cluster, "IPv4", { node }));
    row[3] = cpuMs() - p0;
    if (plan.servicePorts.length === 0) throw new Error("no plan");
  }
  observer.disconnect();
  const median = (k: number): number =>
    rows.map((r) => r[k] as number).sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
  const first = rows[0] as number[];
  return [
    ...[0, 1, 2, 3].map((k) => `${(first[k] as number).toFixed(0)}/${median(k).toFixed(0)}`),
    String(first[4]),
  ].join("\t");
}

const other = otherTool.replace("iptables-", "").replace("-restore", "");
console.log(
  [
    "services",
    "format",
    "cli_cpu_ms",
    "cli_wall_ms",
    "cli_peak_rss_mb",
    "restore_test_cpu_ms",
    "restore_test_wall_ms",
    "restore_test_peak_rss_mb",
    "cpu_ratio",
    "wall_ratio",
    `${other}_test_cpu_ms`,
    `${other}_test_wall_ms`,
    `${other}_cpu_ratio`,
    `${other}_wall_ratio`,
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
    const otherRun = restoreTest(out, otherTool);
    const row = (format: string, run: Run): string =>
      [
        n,
        format,
        run.cpuMs.toFixed(0),
        run.wallMs.toFixed(0),
        run.peakRssMb.toFixed(0),
        ...(typeof base === "string"
          ? [base, "-", "-", "-", "-"]
          : [
              base.cpuMs.toFixed(0),
              base.wallMs.toFixed(0),
              base.peakRssMb.toFixed(0),
              (run.cpuMs / base.cpuMs).toFixed(3),
              (run.wallMs / base.wallMs).toFixed(3),
            ]),
        ...(typeof otherRun === "string"
          ? [otherRun, "-", "-", "-"]
          : [
              otherRun.cpuMs.toFixed(0),
              otherRun.wallMs.toFixed(0),
              (run.cpuMs / otherRun.cpuMs).toFixed(3),
              (run.wallMs / otherRun.wallMs).toFixed(3),
            ]),
      ].join("\t");
    console.log(row("restore", r));
    if (withPhases)
      console.log(
        `  after loading, in process (first/median of 5, ms; page faults of the first): plan+rules\tbytes\tgc\twhole plan (library)\tfaults\n  ${await phases(manifests)}`,
      );
    if (withSave) {
      const s = medianOf(3, () => measure([...cli, ...args, "--format", "save"]));
      if (s.status !== 0) throw new Error(`render iptables --format save: exit ${s.status}`);
      console.log(row("save", s));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
