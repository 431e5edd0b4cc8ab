/**
 * Truth-table benchmark (issue #5): 1,000 pods in 50 namespaces, 500 policies (NetworkPolicies
 * plus a few ANPs and a BANP), ports 80 and 81 over TCP, UDP and SCTP = 6,000,000 probes.
 * Prints the class-based time (target < 2 s) and the ratio against the naive pair-by-pair
 * evaluation, measured on a 200-pod subset in the same process and checked for equal verdicts.
 *
 *   npx tsx bench/policy-matrix.ts
 */
import { performance } from "node:perf_hooks";
import { makeCluster } from "../src/model/cluster.js";
import type {
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
  Namespace,
  NetworkPolicy,
  Pod,
} from "../src/model/kinds.js";
import { compilePoliciesUncached } from "../src/policy/compile.js";
import { computePolicyMatrix, naivePolicyMatrix } from "../src/policy/matrix.js";
import type { Protocol } from "../src/net/port.js";

const NAMESPACES = 50;
const PODS_PER_NS = 20;
const NETWORK_POLICIES = 494;
const PORTS = [80, 81];
const PROTOCOLS: Protocol[] = ["TCP", "UDP", "SCTP"];

// Deterministic PRNG (mulberry32) so every run measures the same cluster.
let seed = 0x5eed;
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const APPS = [
  "web",
  "api",
  "db",
  "cache",
  "queue",
  "auth",
  "search",
  "batch",
  "metrics",
  "gateway",
];
const TEAMS = ["red", "blue", "green", "gold", "gray"];

const namespaces: Namespace[] = [];
const pods: Pod[] = [];
for (let n = 0; n < NAMESPACES; n++) {
  const name = `ns-${n}`;
  namespaces.push({
    metadata: { name, labels: { team: pick(TEAMS), env: pick(["prod", "dev", "staging"]) } },
  });
  for (let p = 0; p < PODS_PER_NS; p++) {
    const app = pick(APPS);
    const ports = [
      { name: "http", containerPort: 80, protocol: "TCP" },
      { name: "metrics", containerPort: 81, protocol: "TCP" },
      ...(rand() < 0.3 ? [{ name: "sig", containerPort: 80, protocol: "SCTP" }] : []),
      ...(rand() < 0.3 ? [{ name: "dns", containerPort: 81, protocol: "UDP" }] : []),
    ];
    pods.push({
      metadata: {
        namespace: name,
        name: `${app}-${p}`,
        labels: { app, tier: pick(["frontend", "backend"]) },
      },
      spec: { nodeName: `node-${p % 10}`, containers: [{ name: "c", ports }] },
      status: {
        podIP: `10.${n}.${p >> 8}.${(p & 255) + 1}`,
        podIPs: [{ ip: `10.${n}.${p >> 8}.${(p & 255) + 1}` }],
      },
    });
  }
}

function randomPolicy(i: number): NetworkPolicy {
  const ns = `ns-${i % NAMESPACES}`;
  const podSelector = rand() < 0.2 ? {} : { matchLabels: { app: pick(APPS) } };
  const kind = Math.floor(rand() * 8);
  const spec: NetworkPolicy["spec"] = { podSelector };
  switch (kind) {
    case 0:
      spec.policyTypes = ["Ingress"];
      break; // default deny
    case 1:
      spec.ingress = [
        { from: [{ podSelector: { matchLabels: { app: pick(APPS) } } }], ports: [{ port: 80 }] },
      ];
      break;
    case 2:
      spec.ingress = [
        {
          from: [{ namespaceSelector: { matchLabels: { team: pick(TEAMS) } } }],
          ports: [{ port: "http" }, { port: "sig", protocol: "SCTP" }],
        },
      ];
      break;
    case 3:
      spec.ingress = [
        {
          from: [
            {
              namespaceSelector: {
                matchExpressions: [{ key: "env", operator: "NotIn", values: ["dev"] }],
              },
              podSelector: { matchLabels: { tier: "frontend" } },
            },
          ],
        },
      ];
      break;
    case 4:
      spec.policyTypes = ["Egress"];
      spec.egress = [
        {
          to: [
            {
              ipBlock: {
                cidr: `10.${Math.floor(rand() * NAMESPACES)}.0.0/16`,
                except: [`10.${Math.floor(rand() * NAMESPACES)}.0.0/24`],
              },
            },
          ],
        },
        { ports: [{ port: 53, protocol: "UDP" }] },
      ];
      break;
    case 5:
      spec.ingress = [
        { ports: [{ port: 80, endPort: 81, protocol: pick(["TCP", "UDP", "SCTP"]) }] },
      ];
      break;
    case 6:
      spec.policyTypes = ["Ingress", "Egress"];
      spec.ingress = [{ from: [{ podSelector: {} }] }];
      spec.egress = [
        { to: [{ namespaceSelector: {} }], ports: [{ port: "metrics" }, { protocol: "UDP" }] },
      ];
      break;
    default:
      spec.ingress = [
        {
          from: [
            {
              ipBlock: {
                cidr: `10.${Math.floor(rand() * NAMESPACES)}.0.${Math.floor(rand() * 20)}/32`,
              },
            },
          ],
        },
      ];
  }
  return { metadata: { namespace: ns, name: `np-${i}` }, spec };
}

const networkPolicies = Array.from({ length: NETWORK_POLICIES }, (_, i) => randomPolicy(i));
const adminNetworkPolicies: AdminNetworkPolicy[] = Array.from({ length: 5 }, (_, i) => ({
  metadata: { name: `anp-${i}` },
  spec: {
    priority: 10 + i,
    subject: { namespaces: { matchLabels: { team: TEAMS[i] as string } } },
    ingress: [
      {
        name: "pass-same-team",
        action: "Pass",
        from: [{ namespaces: { matchLabels: { team: TEAMS[i] as string } } }],
      },
      {
        name: "deny-db-from-dev",
        action: "Deny",
        from: [
          {
            pods: {
              namespaceSelector: { matchLabels: { env: "dev" } },
              podSelector: { matchLabels: { app: "db" } },
            },
          },
        ],
        ports: [{ portRange: { protocol: "TCP", start: 80, end: 81 } }],
      },
    ],
    egress: [
      {
        name: "deny-sctp-out",
        action: "Deny",
        to: [{ networks: ["10.0.0.0/8"] }],
        ports: [{ portNumber: { protocol: "SCTP", port: 81 } }],
      },
    ],
  },
}));
const baselineAdminNetworkPolicies: BaselineAdminNetworkPolicy[] = [
  {
    metadata: { name: "default" },
    spec: {
      subject: { namespaces: { matchLabels: { env: "prod" } } },
      ingress: [{ action: "Deny", from: [{ namespaces: { matchLabels: { env: "dev" } } }] }],
    },
  },
];

const cluster = makeCluster({
  namespaces,
  pods,
  networkPolicies,
  adminNetworkPolicies,
  baselineAdminNetworkPolicies,
});
const policyCount =
  networkPolicies.length + adminNetworkPolicies.length + baselineAdminNetworkPolicies.length;

/** Wall time, and CPU time of this process (what matters when other processes share the cores). */
function time<T>(fn: () => T): { ms: number; cpuMs: number; value: T } {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const value = fn();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, value };
}

const runs = [0, 1, 2].map(() =>
  time(() => {
    const cp = compilePoliciesUncached(cluster);
    return computePolicyMatrix(cp, { ports: PORTS, protocols: PROTOCOLS });
  }),
);
const best = runs.reduce((a, b) => (a.cpuMs <= b.cpuMs ? a : b));
const m = best.value;
const probes = m.pods.length * m.pods.length * m.probes.length;

// Naive pair-by-pair on a 200-pod subset (every 5th pod), same compiled policies.
const cp = compilePoliciesUncached(cluster);
const subset = cp.facts.pods.filter((_, i) => i % 5 === 0).map((p) => p.id);
const naive = time(() =>
  naivePolicyMatrix(cp, { ports: PORTS, protocols: PROTOCOLS, pods: subset }),
);
const naiveProbes = subset.length * subset.length * naive.value.probes.length;
// Same subset through the class path, for a like-for-like ratio and a correctness check.
const subsetCluster = makeCluster({
  ...cluster,
  pods: cluster.pods.filter((p) =>
    subset.includes(`${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`),
  ),
});
const classSubset = time(() =>
  computePolicyMatrix(compilePoliciesUncached(subsetCluster), {
    ports: PORTS,
    protocols: PROTOCOLS,
  }),
);
const equal = Buffer.from(classSubset.value.verdicts).equals(Buffer.from(naive.value.verdicts));
let allowed = 0;
for (const v of m.verdicts) allowed += v;

const perProbeNaive = naive.cpuMs / naiveProbes;
console.log(
  `policy matrix: ${m.pods.length} pods, ${NAMESPACES} namespaces, ${policyCount} policies, ${m.probes.length} probes per pair`,
);
console.log(
  `  class-based: ${probes.toLocaleString("en")} probes in ${best.ms.toFixed(0)} ms wall, ${best.cpuMs.toFixed(0)} ms CPU (best of 3; target < 2000 ms), ${m.classes} classes, ${((100 * allowed) / probes).toFixed(1)}% allowed`,
);
console.log(
  `  naive, 200-pod subset: ${naiveProbes.toLocaleString("en")} probes in ${naive.ms.toFixed(0)} ms wall, ${naive.cpuMs.toFixed(0)} ms CPU (${(perProbeNaive * 1e6).toFixed(0)} ns CPU/probe)`,
);
console.log(
  `  class-based, same subset: ${classSubset.cpuMs.toFixed(0)} ms CPU -> ${(naive.cpuMs / classSubset.cpuMs).toFixed(1)}x faster than naive; verdicts equal: ${equal}`,
);
console.log(
  `  naive extrapolated to ${probes.toLocaleString("en")} probes: ${(perProbeNaive * probes).toFixed(0)} ms CPU -> class-based is ${((perProbeNaive * probes) / best.cpuMs).toFixed(1)}x faster`,
);
if (!equal) process.exitCode = 1;
