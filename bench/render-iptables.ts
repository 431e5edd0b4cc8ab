/**
 * Render benchmark for the iptables proxier: N services × 10 endpoints (every 4th a NodePort,
 * the rest ClusterIP) for N = 1k, 10k, 20k (override: `npx tsx bench/render-iptables.ts 1000 5000`;
 * `--full` also runs the iptables-restore baseline at 20k; `--save` also times, separately and
 * after every render, what renderIptables adds on top: parsing the node state into a RuleSet
 * and formatting the iptables-save text).
 *
 * `render` is what issue #4 asks for: building the plan and serializing the restore text (the
 * path renderIptablesFamilies takes, split into its plan and rules+text steps). The node-state
 * text (restore input plus built-in jumps) is timed on its own. Figures are CPU time (user +
 * system of this process; wall time is printed too but means little on a loaded machine), the
 * process's peak RSS after the render, and the CPU ratio against `iptables-restore --test` of the
 * same text in a scratch network namespace (the baseline, measured in this process; skipped
 * with a reason where it cannot run).
 */
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { makeCluster, type Cluster } from "../src/model/cluster.js";
import type { EndpointSlice, Service } from "../src/model/kinds.js";
import { createNetns, deleteNetns, kernelSkipReason } from "../src/backends/netns.js";
import { planFamily } from "../src/proxiers/common/plan.js";
import { proxierSettings } from "../src/proxiers/common/proxier-settings.js";
import { nodeStateRestoreText } from "../src/proxiers/iptables/node-state.js";
import { renderRestoreSections } from "../src/proxiers/iptables/render-restore.js";
import { renderIptables } from "../src/proxiers/iptables/render-iptables.js";
import type { NodeEnvironment } from "../src/model/node-environment.js";
import { DEFAULT_PROXY_CONFIG } from "../src/model/proxy-config.js";

const ENDPOINTS = 10;

function buildCluster(n: number): Cluster {
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  for (let i = 0; i < n; i++) {
    const nodePort = i % 4 === 0;
    const ip = `172.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`;
    services.push({
      metadata: { namespace: `ns${i % 50}`, name: `svc${i}` },
      spec: {
        type: nodePort ? "NodePort" : "ClusterIP",
        clusterIP: ip,
        clusterIPs: [ip],
        ipFamilies: ["IPv4"],
        ports: [
          {
            name: "http",
            protocol: "TCP",
            port: 80,
            targetPort: 8080,
            ...(nodePort ? { nodePort: 30000 + (i % 2768) } : {}),
          },
        ],
      },
    });
    endpointSlices.push({
      metadata: {
        namespace: `ns${i % 50}`,
        name: `svc${i}-abc`,
        labels: { "kubernetes.io/service-name": `svc${i}` },
      },
      addressType: "IPv4",
      endpoints: Array.from({ length: ENDPOINTS }, (_, e) => ({
        addresses: [`10.${(i >> 8) & 255}.${i & 255}.${e + 1}`],
        conditions: { ready: true },
        nodeName: e % 3 === 0 ? "node-a" : "node-b",
      })),
      ports: [{ name: "http", protocol: "TCP", port: 8080 }],
    });
  }
  return makeCluster({ services, endpointSlices });
}

const node: NodeEnvironment = {
  nodeName: "node-a",
  ipFamilies: ["IPv4"],
  nodeIPs: ["192.168.0.2"],
  interfaces: [
    { name: "lo", addresses: ["127.0.0.1/8"] },
    { name: "eth0", addresses: ["192.168.0.2/24"] },
  ],
  // No nfacct objects exist in a scratch namespace, so the text must not reference any.
  kernel: {
    iptablesRandomFully: true,
    nfacct: [],
    conntrackTCPBeLiberal: false,
    ipvs: true,
    sctp: true,
  },
};

interface Cost {
  readonly wallMs: number;
  /** user + system CPU time: comparable on a busy machine, where wall time is not. */
  readonly cpuMs: number;
}

/** `iptables-restore --test` of `text` in a scratch namespace, timed by bash's `time`. */
function restoreTest(text: string): Cost | string {
  const reason = kernelSkipReason(["root", "ip", "iptables"]);
  if (reason !== undefined) return `skipped: ${reason}`;
  const ns = createNetns("kns-kpb");
  const file = join(tmpdir(), `kns-kpb-${process.pid}.rules`);
  writeFileSync(file, text);
  try {
    const t0 = performance.now();
    const r = spawnSync(
      "ip",
      [
        "netns",
        "exec",
        ns.name,
        "bash",
        "-c",
        `TIMEFORMAT='%U %S'; time iptables-restore --test < ${file}`,
      ],
      { encoding: "utf8", maxBuffer: 1 << 30 },
    );
    const wallMs = performance.now() - t0;
    if (r.status !== 0) return `failed: ${r.stderr.slice(0, 200)}`;
    const [user, sys] = r.stderr.trim().split("\n").pop()!.split(" ").map(Number);
    return { wallMs, cpuMs: ((user ?? 0) + (sys ?? 0)) * 1000 };
  } finally {
    rmSync(file, { force: true });
    deleteNetns(ns);
  }
}

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface RenderCost {
  readonly restore: string;
  readonly wallMs: number;
  readonly planCpuMs: number;
  readonly rulesCpuMs: number;
  readonly nodeStateCpuMs: number;
}

/** Plan, then rules + restore text (together: the render), then the node-state text. */
function render(cluster: Cluster): RenderCost {
  const opts = { node, proxyConfig: DEFAULT_PROXY_CONFIG };
  const t0 = performance.now();
  const c0 = cpuNow();
  const plan = planFamily(cluster, proxierSettings(cluster, "IPv4", opts));
  const c1 = cpuNow();
  const sections = renderRestoreSections(plan, {});
  const restore = sections.text();
  const c2 = cpuNow();
  const wallMs = performance.now() - t0;
  nodeStateRestoreText(sections);
  const c3 = cpuNow();
  return { restore, wallMs, planCpuMs: c1 - c0, rulesCpuMs: c2 - c1, nodeStateCpuMs: c3 - c2 };
}

// iptables-restore --test grows faster than linearly; by default the 20k size is rendered
// (for the growth figure) but not restored, to keep the run near a minute. `--full` restores all.
const full = process.argv.includes("--full");
const withSave = process.argv.includes("--save");
const sizes = process.argv
  .slice(2)
  .filter((a) => !a.startsWith("--"))
  .map(Number);
const run = sizes.length > 0 ? sizes : [1000, 10000, 20000];
const BASELINE_MAX = full || sizes.length > 0 ? Infinity : 10000;
console.log(
  [
    "services",
    "rules",
    "render_wall_ms",
    "render_cpu_ms",
    "plan_cpu_ms",
    "rules_text_cpu_ms",
    "cpu_ms_per_1k_services",
    "node_state_cpu_ms",
    "peak_rss_mb",
    "restore_test_wall_ms",
    "restore_test_cpu_ms",
    "cpu_ratio",
  ].join("\t"),
);
// Warm-up so JIT time is not billed to the first size.
render(buildCluster(2000));
for (const n of run) {
  const cluster = buildCluster(n);
  const r = render(cluster);
  const cpuMs = r.planCpuMs + r.rulesCpuMs;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  let rules = 0;
  for (let i = r.restore.indexOf("\n-A "); i !== -1; i = r.restore.indexOf("\n-A ", i + 1)) rules++;
  const base = n <= BASELINE_MAX ? restoreTest(r.restore) : "not run (use --full)";
  const cols =
    typeof base === "string"
      ? [base, "-", "-"]
      : [base.wallMs.toFixed(0), base.cpuMs.toFixed(0), (cpuMs / base.cpuMs).toFixed(3)];
  console.log(
    [
      n,
      rules,
      r.wallMs.toFixed(0),
      cpuMs.toFixed(0),
      r.planCpuMs.toFixed(0),
      r.rulesCpuMs.toFixed(0),
      ((cpuMs * 1000) / n).toFixed(0),
      r.nodeStateCpuMs.toFixed(0),
      rssMb.toFixed(0),
      ...cols,
    ].join("\t"),
  );
}

// Not part of the render: renderIptables also parses the node state with the netfilter parser
// and formats iptables-save text. Timed after all renders so that its memory does not show in
// their peak RSS.
if (withSave) {
  console.log(["services", "render_iptables_cpu_ms", "of_which_parse_and_save_cpu_ms"].join("\t"));
  for (const n of run) {
    const cluster = buildCluster(n);
    const c0 = cpuNow();
    renderIptables(cluster, { node, proxyConfig: DEFAULT_PROXY_CONFIG });
    const total = cpuNow() - c0;
    const r = render(cluster);
    const restoreOnly = r.planCpuMs + r.rulesCpuMs + r.nodeStateCpuMs;
    console.log([n, total.toFixed(0), Math.max(0, total - restoreOnly).toFixed(0)].join("\t"));
  }
}
