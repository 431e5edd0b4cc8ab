/**
 * A pool of services, each in a few variants (endpoints added, moved, emptied; policies and
 * source ranges changed), for sequences of cluster states: a state picks one variant (or none)
 * per service. Covers ClusterIP, NodePort (SCTP), LoadBalancer with eTP=Local, source ranges,
 * ClientIP affinity, no endpoints and iTP=Local, on the upstream fake's node.
 */
import type { Cluster } from "../../../src/model/cluster.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import type { KubeProxyConfiguration } from "../../../src/model/proxy-config.js";
import { FAKE_NODE } from "../iptables/helpers.js";
import { cluster, edgeIng, NFT_CONFIG, svc } from "./feature-cases.js";

const web = (endpoints: readonly string[]) =>
  svc({
    ns: "shop",
    name: "web",
    spec: "  clusterIP: 172.30.10.5\n  ports: [{name: http, port: 80, protocol: TCP, targetPort: 8080}]",
    ports: "- {name: http, port: 8080, protocol: TCP}",
    endpoints,
  });

const sig = (endpoints: readonly string[], nodePort = 30905) =>
  svc({
    ns: "tel",
    name: "sig",
    spec: `  type: NodePort\n  clusterIP: 172.30.20.7\n  ports: [{name: m3ua, port: 2905, protocol: SCTP, nodePort: ${nodePort}}]`,
    ports: "- {name: m3ua, port: 2905, protocol: SCTP}",
    endpoints,
  });

const fw = (ranges: string, endpoints: readonly string[]) =>
  svc({
    ns: "ns5",
    name: "fw",
    spec: `  type: LoadBalancer\n  clusterIP: 172.30.0.45\n  loadBalancerSourceRanges: [${ranges}]\n  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3005}]`,
    status: "  loadBalancer: {ingress: [{ip: 5.6.7.8}]}",
    ports: "- {name: p80, port: 80, protocol: TCP}",
    endpoints,
  });

const sticky = (endpoints: readonly string[]) =>
  svc({
    ns: "ns6",
    name: "sticky",
    spec: "  clusterIP: 172.30.0.46\n  sessionAffinity: ClientIP\n  sessionAffinityConfig: {clientIP: {timeoutSeconds: 10800}}\n  externalIPs: [192.168.99.33]\n  ports: [{name: p80, port: 80, protocol: TCP}]",
    ports: "- {name: p80, port: 80, protocol: TCP}",
    endpoints,
  });

const itp = (endpoints: readonly string[]) =>
  svc({
    ns: "ns8",
    name: "itp",
    spec: "  type: NodePort\n  internalTrafficPolicy: Local\n  clusterIP: 172.30.0.48\n  ports: [{name: p80, port: 80, protocol: UDP, nodePort: 3008}]",
    ports: "- {name: p80, port: 80, protocol: UDP}",
    endpoints,
  });

/** Per service, its variants (YAML). */
export const POOL: readonly (readonly string[])[] = [
  [web(["10.244.1.7@node-b", "10.244.2.9@test-node"]), web(["10.244.1.8@node-b"]), web([])],
  [sig(["10.244.3.4@node-c"]), sig(["10.244.3.4@node-c"], 30906), sig([])],
  [
    edgeIng(["10.244.1.20@node-b", "10.244.2.21@test-node"]),
    edgeIng(["10.244.1.20@node-b"]),
    edgeIng([]),
  ],
  [
    fw("203.0.113.0/25", ["10.180.0.5@test-node"]),
    fw("203.0.113.0/25, 192.168.0.0/24", []),
    fw("198.51.100.0/24", ["10.180.0.5@test-node"]),
  ],
  [sticky(["10.180.0.6@test-node", "10.180.2.6@node2"]), sticky(["10.180.2.6@node2"])],
  [itp(["10.180.2.8@node2"]), itp(["10.180.0.8@test-node", "10.180.2.8@node2"])],
];

/** A state: for each service of the pool, a variant index, or -1 for "absent". */
export type PoolState = readonly number[];

export function poolCluster(state: PoolState): Cluster {
  const docs = POOL.flatMap((variants, i) => {
    const v = variants[state[i] ?? -1];
    return v === undefined ? [] : [v];
  });
  // The Node object, so that a state without services is still a cluster.
  const node = "apiVersion: v1\nkind: Node\nmetadata: {name: test-node}\n";
  return cluster([node, ...docs].join("---\n"));
}

export const POOL_NODE: NodeEnvironment = FAKE_NODE;
export const POOL_CONFIG: KubeProxyConfiguration = NFT_CONFIG;
