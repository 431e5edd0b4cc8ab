/**
 * verify --auto's pod pairs for AdminNetworkPolicy, BaselineAdminNetworkPolicy and
 * ClusterNetworkPolicy: ingress subjects are reached from every pod on this node, egress
 * subjects on this node reach every pod a peer selects, on the rules' ports and the target's
 * container ports; host-network pods and pods without IPv4 are left out.
 */
import { describe, expect, it } from "@jest/globals";
import { adminPolicyPairs } from "../../src/backends/admin-policy-pairs.js";
import { autoProbes } from "../../src/backends/auto-probes.js";
import { scenarioOfCluster } from "../../src/backends/scenario-of-cluster.js";
import { parseCluster } from "../../src/model/load.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";

const pod = (ns: string, name: string, ip: string, node: string, labels: string, port: number) => `
apiVersion: v1
kind: Pod
metadata: { name: ${name}, namespace: ${ns}, labels: { ${labels} } }
spec:
  nodeName: ${node}
  containers: [{ name: c, image: i, ports: [{ containerPort: ${port} }] }]
status: { phase: Running, podIP: ${ip} }
`;

const BASE = [
  `apiVersion: v1
kind: Namespace
metadata: { name: prod, labels: { env: prod } }`,
  `apiVersion: v1
kind: Namespace
metadata: { name: dev, labels: { env: dev } }`,
  pod("dev", "client", "10.244.1.10", "node-1", "app: client", 9000),
  pod("prod", "db", "10.244.2.20", "node-2", "app: db", 5432),
  pod("prod", "api", "10.244.1.21", "node-1", "app: api", 8080),
  `apiVersion: v1
kind: Pod
metadata: { name: host, namespace: prod, labels: { app: db } }
spec: { nodeName: node-1, hostNetwork: true, containers: [{ name: c, image: i }] }
status: { phase: Running, podIP: 192.168.10.11 }`,
];

const ANP = `apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: { name: guard-db }
spec:
  priority: 10
  subject: { pods: { namespaceSelector: { matchLabels: { env: prod } }, podSelector: { matchLabels: { app: db } } } }
  ingress:
    - name: dev-no
      action: Deny
      from: [{ namespaces: { matchLabels: { env: dev } } }]
      ports: [{ portNumber: { protocol: UDP, port: 53 } }, { portRange: { protocol: TCP, start: 7000, end: 7010 } }]`;

const BANP = `apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: { name: default }
spec:
  subject: { namespaces: { matchLabels: { env: prod } } }
  egress:
    - name: to-dev
      action: Deny
      to: [{ pods: { namespaceSelector: { matchLabels: { env: dev } }, podSelector: {} } }]
      ports: [{ portNumber: { protocol: SCTP, port: 3868 } }]`;

const CNP = `apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: { name: dev-in }
spec:
  tier: Admin
  priority: 5
  subject: { namespaces: { matchLabels: { env: dev } } }
  ingress:
    - { name: all, action: Accept, from: [{ namespaces: {} }] }`;

const load = (docs: readonly string[]) =>
  parseCluster([{ file: "cluster.yaml", text: docs.join("\n---\n") }]);

const key = (p: { from: string; to: string; protocol: string; port: number }): string =>
  `${p.protocol} ${p.from} -> ${p.to}:${p.port}`;

describe("adminPolicyPairs", () => {
  const local = new Set(["dev/client", "prod/api"]);

  it("ANP ingress: every local pod to each subject, on rule ports (both ends of a range) and container ports", () => {
    const pairs = adminPolicyPairs(load([...BASE, ANP]), local).map(key);
    expect(pairs.sort()).toEqual(
      [
        "udp dev/client -> 10.244.2.20:53",
        "tcp dev/client -> 10.244.2.20:7000",
        "tcp dev/client -> 10.244.2.20:7010",
        "tcp dev/client -> 10.244.2.20:5432",
        "udp prod/api -> 10.244.2.20:53",
        "tcp prod/api -> 10.244.2.20:7000",
        "tcp prod/api -> 10.244.2.20:7010",
        "tcp prod/api -> 10.244.2.20:5432",
      ].sort(),
    );
  });

  it("BANP egress: local subjects to the pods a peer selects (host-network pods never)", () => {
    const pairs = adminPolicyPairs(load([...BASE, BANP]), local).map(key);
    // prod/db is a subject too but not on this node; prod/host is host-network.
    expect(pairs.sort()).toEqual(
      ["sctp prod/api -> 10.244.1.10:3868", "tcp prod/api -> 10.244.1.10:9000"].sort(),
    );
  });

  it("CNP: a pod is never paired with itself", () => {
    const pairs = adminPolicyPairs(load([...BASE, CNP]), local).map(key);
    expect(pairs).toEqual(["tcp prod/api -> 10.244.1.10:9000"]);
  });

  it("no admin policies: no pairs", () => {
    expect(adminPolicyPairs(load(BASE), local)).toEqual([]);
  });
});

describe("autoProbes includes the admin-policy pairs", () => {
  it("from pods on this node, deduplicated, each with its own source port", () => {
    const cluster = load([...BASE, ANP, BANP, CNP]);
    const node = parseNodeEnvironment(
      `apiVersion: kube-netsim.dev/v1alpha1
kind: NodeEnvironment
nodeName: node-1
nodeIPs: [192.168.10.11]
interfaces:
  - { name: lo, addresses: [127.0.0.1/8] }
  - { name: eth0, addresses: [192.168.10.11/24] }
  - { name: cni0, addresses: [10.244.1.1/24] }
`,
      "node.yaml",
    );
    const scenario = scenarioOfCluster(cluster, { node, proxyConfig: DEFAULT_PROXY_CONFIG });
    const probes = autoProbes(cluster, scenario, { proxyConfig: DEFAULT_PROXY_CONFIG });
    const keys = probes.map((p) => key(p));
    expect(keys).toEqual(
      expect.arrayContaining([
        "udp dev/client -> 10.244.2.20:53",
        "sctp prod/api -> 10.244.1.10:3868",
        "tcp prod/api -> 10.244.1.10:9000",
      ]),
    );
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(probes.map((p) => p.sourcePort)).size).toBe(probes.length);
  });
});
