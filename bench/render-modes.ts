/**
 * `kube-netsim render nftables` and `kube-netsim render ipvs` as a user runs them (the built
 * CLI, a process of its own, output to a file): N Services × 10 endpoints from YAML (the
 * fixtures of bench/render-iptables.ts; 10,000 is ~12 MB in 20,000 documents) for a
 * NodeEnvironment. Per size and mode: CPU time (user + system; comparable on a busy machine,
 * where wall time is not), wall time and peak RSS, median of 3 runs (GNU time). Baselines in
 * the same run:
 * - `validate` of the same file: loading alone (start-up and YAML), which every render pays;
 * - nftables: `nft -c -f` of the same Dump in a scratch network namespace (median of 3; skipped
 *   with the reason where root, `ip` or `nft` is missing), and the CPU ratio, as
 *   bench/nftables.ts gives it for the library's render;
 * - ipvs: `render iptables` of the same input (the mode whose path was made fast first).
 *   npx tsx bench/render-modes.ts [services...]   (default: 1000 10000; --quick: 1000)
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
const quick = process.argv.includes("--quick");
const sizes = process.argv
  .slice(2)
  .filter((a) => !a.startsWith("--"))
  .map(Number);
const cli = cliArgv(root);
const dir = mkdtempSync(join(tmpdir(), "kns-bench-modes-"));
const nodeEnv = join(dir, "node.yaml");
writeFileSync(nodeEnv, NODE_ENV_YAML);
const hasNft = spawnSync("sh", ["-c", "command -v nft"]).status === 0;

/** `nft -c -f file` in a scratch namespace (median of 3), or why it cannot run. */
function nftCheck(file: string): Run | string {
  const reason = kernelSkipReason(["root", "ip"]) ?? (hasNft ? undefined : "nft not installed");
  if (reason !== undefined) return `skipped: ${reason}`;
  const ns = createNetns("kns-nftm");
  try {
    const r = medianOf(3, () => measure(["ip", "netns", "exec", ns.name, "nft", "-c", "-f", file]));
    return r.status === 0 ? r : `failed: ${r.stderr.slice(0, 200)}`;
  } finally {
    deleteNetns(ns);
  }
}

function run(args: readonly string[], out?: string): Run {
  const r = medianOf(3, () => measure([...cli, ...args], out));
  if (r.status !== 0)
    throw new Error(`${args.slice(0, 2).join(" ")}: exit ${r.status}\n${r.stderr}`);
  return r;
}

const cols = (r: Run): string[] => [
  r.cpuMs.toFixed(0),
  r.wallMs.toFixed(0),
  r.peakRssMb.toFixed(0),
];

console.log(
  [
    "services",
    "command",
    "cpu_ms",
    "wall_ms",
    "peak_rss_mb",
    "baseline",
    "baseline_cpu_ms",
    "baseline_wall_ms",
    "cpu_ratio",
  ].join("\t"),
);
try {
  for (const n of sizes.length > 0 ? sizes : quick ? [1000] : [1000, 10000]) {
    const manifests = join(dir, `services-${n}.yaml`);
    writeFileSync(manifests, servicesYaml(n));
    const input = ["-f", manifests, "--node-env", nodeEnv];
    const validate = run(["validate", "-f", manifests]);
    console.log([n, "validate", ...cols(validate), "-", "-", "-", "-"].join("\t"));

    const dump = join(dir, `services-${n}.nft`);
    const nft = run(["render", "nftables", ...input], dump);
    const check = nftCheck(dump);
    console.log(
      [
        n,
        "render nftables",
        ...cols(nft),
        "nft -c -f",
        ...(typeof check === "string"
          ? [check, "-", "-"]
          : [
              check.cpuMs.toFixed(0),
              check.wallMs.toFixed(0),
              (nft.cpuMs / check.cpuMs).toFixed(3),
            ]),
      ].join("\t"),
    );

    const ipvs = run(["render", "ipvs", ...input], join(dir, `services-${n}.ipvs`));
    const iptables = run(["render", "iptables", ...input], join(dir, `services-${n}.rules`));
    console.log(
      [
        n,
        "render ipvs",
        ...cols(ipvs),
        "render iptables",
        iptables.cpuMs.toFixed(0),
        iptables.wallMs.toFixed(0),
        (ipvs.cpuMs / iptables.cpuMs).toFixed(3),
      ].join("\t"),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
