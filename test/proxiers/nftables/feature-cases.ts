/**
 * Clusters for the nftables feature tests and the kernel oracle, on the upstream fake's node
 * (test-node, 192.168.0.2; clusterCIDR 10.0.0.0/8; ServiceCIDR 172.30.0.0/16).
 */
import type { Cluster } from "../../../src/model/cluster.js";
import { parseCluster } from "../../../src/model/load.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import {
  DEFAULT_PROXY_CONFIG,
  type KubeProxyConfiguration,
} from "../../../src/model/proxy-config.js";
import { FAKE_NODE } from "../iptables/helpers.js";

export interface FeatureCase {
  readonly name: string;
  readonly cluster: Cluster;
  readonly node: NodeEnvironment;
  readonly proxyConfig: KubeProxyConfiguration;
}

export const NFT_CONFIG: KubeProxyConfiguration = {
  ...DEFAULT_PROXY_CONFIG,
  mode: "nftables",
  hostnameOverride: "test-node",
  clusterCIDR: "10.0.0.0/8,fd00:10::/64",
  detectLocalMode: "ClusterCIDR",
  nodePortAddresses: ["192.168.0.2/32", "2001:db8::1/128"],
  nftables: { masqueradeAll: false, masqueradeBit: 14 },
};

const SERVICE_CIDR = `
apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata: {name: kubernetes}
spec: {cidrs: [172.30.0.0/16, "fd00:172:30::/112"]}
`;

export function cluster(yaml: string): Cluster {
  return parseCluster([{ file: "cluster.yaml", text: `${yaml}\n---\n${SERVICE_CIDR}` }], {
    validation: "warn",
  });
}

/** A Service plus one EndpointSlice; endpoints as `ip@node` (no node: `ip`). */
export function svc(opts: {
  ns: string;
  name: string;
  spec: string;
  status?: string;
  ports: string;
  endpoints: readonly string[];
  addressType?: "IPv4" | "IPv6";
}): string {
  const eps = opts.endpoints
    .map((e) => {
      const [ip, node] = e.split("@");
      return `- addresses: ["${ip}"]${node === undefined ? "" : `\n  nodeName: ${node}`}`;
    })
    .join("\n");
  return `apiVersion: v1
kind: Service
metadata: {name: ${opts.name}, namespace: ${opts.ns}}
spec:
${opts.spec}
${opts.status === undefined ? "" : `status:\n${opts.status}\n`}---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: ${opts.name}-1
  namespace: ${opts.ns}
  labels: {kubernetes.io/service-name: ${opts.name}}
addressType: ${opts.addressType ?? "IPv4"}
endpoints:
${eps === "" ? "[]" : eps}
ports:
${opts.ports}
`;
}

const base = (
  name: string,
  yaml: string,
  config: Partial<KubeProxyConfiguration> = {},
  node = FAKE_NODE,
): FeatureCase => ({
  name,
  cluster: cluster(yaml),
  node,
  proxyConfig: { ...NFT_CONFIG, ...config },
});

export const SHOP_WEB = svc({
  ns: "shop",
  name: "web",
  spec: "  clusterIP: 172.30.10.5\n  ports: [{name: http, port: 80, protocol: TCP, targetPort: 8080}]",
  ports: "- {name: http, port: 8080, protocol: TCP}",
  endpoints: ["10.244.1.7@node-b", "10.244.2.9@test-node"],
});

export const TEL_SIG = svc({
  ns: "tel",
  name: "sig",
  spec: "  type: NodePort\n  clusterIP: 172.30.20.7\n  ports: [{name: m3ua, port: 2905, protocol: SCTP, nodePort: 30905}]",
  ports: "- {name: m3ua, port: 2905, protocol: SCTP}",
  endpoints: ["10.244.3.4@node-c"],
});

export function edgeIng(endpoints: readonly string[]): string {
  return svc({
    ns: "edge",
    name: "ing",
    spec: "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 31999\n  clusterIP: 172.30.30.9\n  ports: [{name: https, port: 443, protocol: TCP, targetPort: 8443, nodePort: 31443}]",
    status: "  loadBalancer: {ingress: [{ip: 198.51.100.10}]}",
    ports: "- {name: https, port: 8443, protocol: TCP}",
    endpoints,
  });
}

const FIREWALLED = svc({
  ns: "ns5",
  name: "fw",
  spec: "  type: LoadBalancer\n  clusterIP: 172.30.0.45\n  loadBalancerSourceRanges: [203.0.113.0/25, 192.168.0.0/24]\n  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3005}]",
  status: "  loadBalancer: {ingress: [{ip: 5.6.7.8}, {ip: 1.2.3.4}]}",
  ports: "- {name: p80, port: 80, protocol: TCP}",
  endpoints: ["10.180.0.5@test-node"],
});

const AFFINITY = svc({
  ns: "ns6",
  name: "sticky",
  spec: "  clusterIP: 172.30.0.46\n  sessionAffinity: ClientIP\n  sessionAffinityConfig: {clientIP: {timeoutSeconds: 10800}}\n  externalIPs: [192.168.99.33]\n  ports: [{name: p80, port: 80, protocol: TCP}]",
  ports: "- {name: p80, port: 80, protocol: TCP}",
  endpoints: ["10.180.0.6@test-node", "10.180.2.6@node2"],
});

const NO_ENDPOINTS = svc({
  ns: "ns7",
  name: "empty",
  spec: "  type: LoadBalancer\n  clusterIP: 172.30.0.47\n  externalIPs: [192.168.99.47]\n  ports: [{name: p80, port: 80, protocol: UDP, nodePort: 3007}]",
  status: "  loadBalancer: {ingress: [{ip: 5.6.7.47}]}",
  ports: "- {name: p80, port: 80, protocol: UDP}",
  endpoints: [],
});

const ITP_LOCAL = svc({
  ns: "ns8",
  name: "itp",
  spec: "  type: NodePort\n  internalTrafficPolicy: Local\n  clusterIP: 172.30.0.48\n  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3008}]",
  ports: "- {name: p80, port: 80, protocol: TCP}",
  endpoints: ["10.180.2.8@node2"],
});

const DUAL = svc({
  ns: "ns9",
  name: "dual",
  spec: '  type: NodePort\n  ipFamilyPolicy: RequireDualStack\n  ipFamilies: [IPv4, IPv6]\n  clusterIP: 172.30.0.49\n  clusterIPs: [172.30.0.49, "fd00:172:30::49"]\n  ports: [{name: p80, port: 80, protocol: TCP, nodePort: 3009}]',
  ports: "- {name: p80, port: 80, protocol: TCP}",
  endpoints: ["fd00:10:180::9@test-node", "fd00:10:180::2:9@node2"],
  addressType: "IPv6",
});

const DUAL_V4 = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: dual-v4
  namespace: ns9
  labels: {kubernetes.io/service-name: dual}
addressType: IPv4
endpoints:
- addresses: ["10.180.0.9"]
  nodeName: test-node
ports:
- {name: p80, port: 80, protocol: TCP}
`;

export const FEATURE_CASES: readonly FeatureCase[] = [
  base("shop/web", SHOP_WEB),
  base("tel/sig", TEL_SIG),
  base("edge/ing local endpoint", edgeIng(["10.244.1.20@node-b", "10.244.2.21@test-node"])),
  base("edge/ing no local endpoint", edgeIng(["10.244.1.20@node-b"])),
  base("firewall", FIREWALLED),
  base("affinity", AFFINITY),
  base("no endpoints", NO_ENDPOINTS),
  base("itp local", ITP_LOCAL),
  base(
    "masqueradeAll, bridge detector",
    [SHOP_WEB, edgeIng(["10.244.2.21@test-node"])].join("---\n"),
    {
      detectLocalMode: "BridgeInterface",
      detectLocal: { bridgeInterface: "cbr0", interfaceNamePrefix: "" },
      nftables: { masqueradeAll: true, masqueradeBit: 14 },
    },
  ),
  base("interface prefix detector, match-all nodeports", edgeIng(["10.244.2.21@test-node"]), {
    detectLocalMode: "InterfaceNamePrefix",
    detectLocal: { bridgeInterface: "", interfaceNamePrefix: "veth" },
    nodePortAddresses: ["0.0.0.0/0"],
  }),
  base(
    "dual stack",
    [DUAL, DUAL_V4].join("---\n"),
    { nodePortAddresses: ["0.0.0.0/0", "::/0"] },
    {
      ...FAKE_NODE,
      ipFamilies: ["IPv4", "IPv6"],
      nodeIPs: ["192.168.0.2", "2001:db8::1"],
    },
  ),
];
