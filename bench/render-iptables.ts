/**
 * Render benchmark for the iptables proxier: N services × 10 endpoints (every 4th a NodePort,
 * the rest ClusterIP) for N = 1k, 10k, 20k (override: `npx tsx bench/render-iptables.ts 1000 5000`;
 * `--full` also runs the iptables-restore baseline at 20k).
 * Reports the time to plan and serialize the restore text, the process's peak RSS, and the
 * ratio against `iptables-restore --test` of the same text in a scratch network namespace (the
 * baseline, measured in this process; skipped with a reason where it cannot run).
 */
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { makeCluster, type Cluster } from "../src/model/cluster.js";
import type { EndpointSlice, Service } from "../src/model/kinds.js";
import { createNetns, deleteNetns, kernelSkipReason } from "../src/backends/netns.js";
import { renderIptablesFamilies } from "../src/proxiers/iptables/render.js";
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

// iptables-restore --test grows faster than linearly; by default the 20k size is rendered
// (for the growth figure) but not restored, to keep the run near a minute. `--full` restores all.
const full = process.argv.includes("--full");
const sizes = process.argv
  .slice(2)
  .filter((a) => a !== "--full")
  .map(Number);
const run = sizes.length > 0 ? sizes : [1000, 10000, 20000];
const BASELINE_MAX = full || sizes.length > 0 ? Infinity : 10000;
console.log(
  "services\trules\trender_wall_ms\trender_cpu_ms\tpeak_rss_mb\trestore_test_wall_ms\trestore_test_cpu_ms\tcpu_ratio",
);
// Warm-up so JIT time is not billed to the first size.
renderIptablesFamilies(buildCluster(200), { node, proxyConfig: DEFAULT_PROXY_CONFIG });
for (const n of run) {
  const cluster = buildCluster(n);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const [f] = renderIptablesFamilies(cluster, { node, proxyConfig: DEFAULT_PROXY_CONFIG });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const rules = f!.restore.split("\n").filter((l) => l.startsWith("-A ")).length;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  const base = n <= BASELINE_MAX ? restoreTest(f!.restore) : "not run (use --full)";
  const cols =
    typeof base === "string"
      ? [base, "-", "-"]
      : [base.wallMs.toFixed(0), base.cpuMs.toFixed(0), (cpuMs / base.cpuMs).toFixed(3)];
  console.log([n, rules, wall.toFixed(0), cpuMs.toFixed(0), rssMb.toFixed(0), ...cols].join("\t"));
}
