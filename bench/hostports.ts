/**
 * The kubenet hostport manager rewrites every hostport chain on each Add (one
 * iptables-restore of all KUBE-HP chains, as the kubelet does), so a node's cost grows
 * quadratically with its hostPort pods; portmap only appends. This measures both against a
 * baseline of 50 pods in the same process and prints the ratios.
 *
 *   npx tsx bench/hostports.ts           # 50 → 400 pods
 *   npx tsx bench/hostports.ts --quick   # 50 → 100 pods
 */
import { performance } from "node:perf_hooks";
import { hostportRulesForNode, type HostportImpl } from "../src/hostports/index.js";
import { makeCluster } from "../src/model/cluster.js";
import type { Pod } from "../src/model/kinds.js";
import { DEFAULT_KERNEL, type NodeEnvironment } from "../src/model/node-environment.js";

const node: NodeEnvironment = {
  nodeName: "node-a",
  ipFamilies: ["IPv4"],
  nodeIPs: ["192.168.0.2"],
  interfaces: [{ name: "eth0", addresses: ["192.168.0.2/24"] }],
  kernel: DEFAULT_KERNEL,
};

function pods(n: number): Pod[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: `p${i}`, namespace: "default", uid: `uid-${i}` },
    spec: {
      nodeName: "node-a",
      containers: [
        {
          name: "c",
          ports: [
            { containerPort: 80, hostPort: 10000 + i, protocol: "TCP" as const },
            { containerPort: 53, hostPort: 20000 + i, protocol: "UDP" as const },
            { containerPort: 5060, hostPort: 30000 + i, protocol: "SCTP" as const },
          ],
        },
      ],
    },
    status: { podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, podIPs: [] },
  }));
}

function timeIt(impl: HostportImpl, n: number): number {
  const cluster = makeCluster({ pods: pods(n) });
  const reps = n <= 100 ? 5 : 2;
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    hostportRulesForNode(cluster, node, { impl });
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const sizes = process.argv.includes("--quick") ? [100] : [100, 200, 400];
for (const impl of ["kubenet", "portmap"] as const) {
  const base = timeIt(impl, 50);
  const line = [`${impl}: 50 pods ${base.toFixed(1)} ms (baseline)`];
  for (const n of sizes) line.push(`${n} pods ×${(timeIt(impl, n) / base).toFixed(1)}`);
  console.log(line.join(", "));
}
