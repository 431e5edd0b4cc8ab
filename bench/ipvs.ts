/**
 * The IPVS proxier against the iptables proxier on the same clusters, in the same process:
 * rendering (the iptables render is the baseline), building the traceable dataplane, and
 * tracing one packet per service. IPVS output grows with services × node addresses (one
 * NodePort virtual server per address) but has no per-endpoint rules, so it should scale better.
 *
 *   npx tsx bench/ipvs.ts           # 250 → 2000 services × 4 endpoints
 *   npx tsx bench/ipvs.ts --quick   # 100 → 400 services
 */
import { performance } from "node:perf_hooks";
import { buildNodeDataplane } from "../src/node/node-dataplane.js";
import { makeCluster, type Cluster } from "../src/model/cluster.js";
import type { EndpointSlice, Service } from "../src/model/kinds.js";
import type { NodeEnvironment } from "../src/model/node-environment.js";
import { DEFAULT_PROXY_CONFIG, type KubeProxyConfiguration } from "../src/model/proxy-config.js";
import { trace } from "../src/netfilter/trace/index.js";
import { renderIptables } from "../src/proxiers/iptables/render-iptables.js";
import { renderIpvs } from "../src/proxiers/ipvs/index.js";

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
    conntrackTCPBeLiberal: true,
    ipvs: true,
    sctp: true,
  },
};
const iptablesConfig: KubeProxyConfiguration = {
  ...DEFAULT_PROXY_CONFIG,
  clusterCIDR: "10.0.0.0/8",
};
const ipvsConfig: KubeProxyConfiguration = { ...iptablesConfig, mode: "ipvs" };
const PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;

const ip = (base: number, i: number) => `${base}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function cluster(n: number): Cluster {
  const services: Service[] = [];
  const slices: EndpointSlice[] = [];
  for (let i = 0; i < n; i++) {
    const protocol = PROTOCOLS[i % 3]!;
    services.push({
      metadata: { name: `s${i}`, namespace: "default" },
      spec: {
        type: i % 2 === 0 ? "NodePort" : "ClusterIP",
        clusterIP: ip(172, i + 1),
        clusterIPs: [ip(172, i + 1)],
        ipFamilies: ["IPv4"],
        ports: [
          {
            name: "p",
            protocol,
            port: 80,
            ...(i % 2 === 0 ? { nodePort: 30000 + (i % 2700) } : {}),
          },
        ],
      },
    });
    slices.push({
      metadata: {
        name: `s${i}-1`,
        namespace: "default",
        labels: { "kubernetes.io/service-name": `s${i}` },
      },
      addressType: "IPv4",
      endpoints: [0, 1, 2, 3].map((j) => ({
        addresses: [ip(10, i * 4 + j + 1)],
        nodeName: j === 0 ? "node-a" : "node-b",
        conditions: { ready: true },
      })),
      ports: [{ name: "p", protocol, port: 8080 }],
    });
  }
  return makeCluster({ services, endpointSlices: slices });
}

function time(fn: () => void, repeat = 3): number {
  let best = Infinity;
  for (let r = 0; r < repeat; r++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const sizes = process.argv.includes("--quick") ? [100, 400] : [250, 1000, 2000];
console.log(
  "services  render iptables  render ipvs (ratio)  dataplane ipt / ipvs  trace 1/svc ipt / ipvs",
);
for (const n of sizes) {
  const c = cluster(n);
  const tIpt = time(() => renderIptables(c, { node, proxyConfig: iptablesConfig }));
  const tIpvs = time(() => renderIpvs(c, { node, proxyConfig: ipvsConfig }));
  let dpIpt = buildNodeDataplane(c, { node, proxyConfig: iptablesConfig, hostports: false });
  let dpIpvs = buildNodeDataplane(c, { node, proxyConfig: ipvsConfig, hostports: false });
  const bIpt = time(
    () => (dpIpt = buildNodeDataplane(c, { node, proxyConfig: iptablesConfig, hostports: false })),
    1,
  );
  const bIpvs = time(
    () => (dpIpvs = buildNodeDataplane(c, { node, proxyConfig: ipvsConfig, hostports: false })),
    1,
  );
  const packets = Array.from({ length: n }, (_, i) => ({
    proto: PROTOCOLS[i % 3]!.toLowerCase() as "tcp" | "udp" | "sctp",
    src: "192.168.0.77",
    dst: ip(172, i + 1),
    dport: 80,
  }));
  const trIpt = time(() => packets.forEach((p) => trace(dpIpt, p, { explain: false })), 1);
  const trIpvs = time(() => packets.forEach((p) => trace(dpIpvs, p, { explain: false })), 1);
  console.log(
    `${String(n).padStart(8)}  ${tIpt.toFixed(1).padStart(13)}ms  ${tIpvs.toFixed(1).padStart(9)}ms (${(tIpvs / tIpt).toFixed(2)}x)` +
      `  ${bIpt.toFixed(0)}ms / ${bIpvs.toFixed(0)}ms (${(bIpvs / bIpt).toFixed(2)}x)` +
      `  ${trIpt.toFixed(0)}ms / ${trIpvs.toFixed(0)}ms (${(trIpvs / trIpt).toFixed(2)}x)`,
  );
}
