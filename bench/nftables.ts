/**
 * Render benchmark for the nftables proxier: N services × 10 endpoints (every 4th a NodePort)
 * for N = 1k and 10k by default (override: `npx tsx bench/nftables.ts 2000 5000`; `--quick`:
 * 1k only). Figures: the CPU time of `renderNftables` (plan, typed table, Dump text; user +
 * system of this process), the process's peak RSS, and the CPU time of `nft -c -f` on the same
 * Dump in a scratch network namespace (the baseline, measured in this run; skipped with a
 * reason where root, `ip` or `nft` is missing). Target (issue #16): render ≤ 1/5 of nft's check.
 */
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createNetns, deleteNetns, kernelSkipReason } from "../src/backends/netns.js";
import { makeCluster, type Cluster } from "../src/model/cluster.js";
import type { EndpointSlice, Service } from "../src/model/kinds.js";
import type { NodeEnvironment } from "../src/model/node-environment.js";
import { DEFAULT_PROXY_CONFIG } from "../src/model/proxy-config.js";
import { renderNftables } from "../src/proxiers/nftables/index.js";

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
  kernel: {
    iptablesRandomFully: true,
    nfacct: [],
    conntrackTCPBeLiberal: false,
    ipvs: true,
    sctp: true,
  },
};

const hasNft = spawnSync("sh", ["-c", "command -v nft"]).status === 0;

/** `nft -c -f` of `text` in a scratch namespace: CPU ms (bash `time`), or why it did not run. */
function nftCheck(text: string): { wallMs: number; cpuMs: number } | string {
  const reason = kernelSkipReason(["root", "ip"]) ?? (hasNft ? undefined : "nft not installed");
  if (reason !== undefined) return `skipped: ${reason}`;
  const ns = createNetns("kns-nftb");
  const file = join(tmpdir(), `kns-nftb-${process.pid}.nft`);
  writeFileSync(file, text);
  try {
    const t0 = performance.now();
    const r = spawnSync(
      "ip",
      ["netns", "exec", ns.name, "bash", "-c", `TIMEFORMAT='%U %S'; time nft -c -f ${file}`],
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

const quick = process.argv.includes("--quick");
const sizes = process.argv
  .slice(2)
  .filter((a) => !a.startsWith("--"))
  .map(Number);
const run = sizes.length > 0 ? sizes : quick ? [1000] : [1000, 10000];
const opts = { node, proxyConfig: { ...DEFAULT_PROXY_CONFIG, mode: "nftables" as const } };
console.log(
  ["services", "lines", "render_cpu_ms", "peak_rss_mb", "nft_check_cpu_ms", "cpu_ratio"].join("\t"),
);
renderNftables(buildCluster(1000), opts); // warm-up
for (const n of run) {
  const cluster = buildCluster(n);
  const c0 = cpuNow();
  // The Dump text is what is checked, so its serialization is part of the render.
  const dump = renderNftables(cluster, opts).dump;
  const cpuMs = cpuNow() - c0;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  const lines = dump.split("\n").length - 1;
  const base = nftCheck(dump);
  const cols =
    typeof base === "string"
      ? [base, "-"]
      : [base.cpuMs.toFixed(0), (cpuMs / base.cpuMs).toFixed(3)];
  console.log([n, lines, cpuMs.toFixed(0), rssMb.toFixed(0), ...cols].join("\t"));
}
