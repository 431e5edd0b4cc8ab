/**
 * Random clusters and packets for the differential test of the two kube-proxy modes. The node
 * is fixed (eth0 192.168.0.10/24, the pod bridge cni0 10.244.1.1/24, lo); services vary in type,
 * protocol, traffic policies, externalIPs, LoadBalancer ingress and source ranges, and have zero
 * to three endpoints on this node (10.244.1.0/24) or another (10.244.2.0/24).
 */
import { fc } from "@fast-check/jest";
import { makeCluster, type Cluster } from "../../src/model/cluster.js";
import type { EndpointSlice, Service } from "../../src/model/kinds.js";
import type { NodeEnvironment } from "../../src/model/node-environment.js";
import { DEFAULT_PROXY_CONFIG, type KubeProxyConfiguration } from "../../src/model/proxy-config.js";
import type { Protocol } from "../../src/net/index.js";

export const NODE_NAME = "test-node";
export const NODE_IP = "192.168.0.10";
export const LOCAL_POD_IP = "10.244.1.100";
export const OUTSIDE_IP = "198.18.0.5";
/** An outside client inside the source range `203.0.113.0/24`. */
export const ALLOWED_OUTSIDE_IP = "203.0.113.50";

export const NODE: NodeEnvironment = {
  nodeName: NODE_NAME,
  ipFamilies: ["IPv4"],
  nodeIPs: [NODE_IP],
  interfaces: [
    { name: "lo", addresses: ["127.0.0.1/8"] },
    { name: "eth0", addresses: [`${NODE_IP}/24`] },
    { name: "cni0", addresses: ["10.244.1.1/24"] },
  ],
  kernel: {
    iptablesRandomFully: false,
    nfacct: [],
    conntrackTCPBeLiberal: true,
    ipvs: true,
    sctp: true,
  },
};

const BASE_CONFIG: KubeProxyConfiguration = {
  ...DEFAULT_PROXY_CONFIG,
  clusterCIDR: "10.244.0.0/16",
  detectLocalMode: "ClusterCIDR",
};
export const IPTABLES_CONFIG: KubeProxyConfiguration = { ...BASE_CONFIG, mode: "iptables" };
export const IPVS_CONFIG: KubeProxyConfiguration = {
  ...BASE_CONFIG,
  mode: "ipvs",
  ipvs: { scheduler: "rr", strictARP: false, excludeCIDRs: [] },
};

export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer";

export interface ServiceSpecArb {
  readonly type: ServiceType;
  readonly protocol: Protocol;
  readonly port: number;
  readonly externalIP: boolean;
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
  readonly sourceRanges: readonly string[];
  readonly sessionAffinity: boolean;
  /** true = on this node. */
  readonly endpoints: readonly boolean[];
}

export interface ServiceScenario extends ServiceSpecArb {
  readonly index: number;
  readonly name: string;
  readonly clusterIP: string;
  readonly nodePort: number;
  readonly externalIPs: readonly string[];
  readonly loadBalancerIPs: readonly string[];
  readonly endpointIPs: readonly { readonly ip: string; readonly local: boolean }[];
}

export const serviceSpecArb: fc.Arbitrary<ServiceSpecArb> = fc.record({
  type: fc.constantFrom<ServiceType>("ClusterIP", "NodePort", "LoadBalancer"),
  protocol: fc.constantFrom<Protocol>("TCP", "UDP", "SCTP"),
  port: fc.constantFrom(80, 5000),
  externalIP: fc.boolean(),
  externalPolicyLocal: fc.boolean(),
  internalPolicyLocal: fc.boolean(),
  sourceRanges: fc.constantFrom<readonly string[]>([], [], ["203.0.113.0/24"], ["192.168.0.0/24"]),
  sessionAffinity: fc.boolean(),
  endpoints: fc.array(fc.boolean(), { maxLength: 3 }),
});

export function scenarioOf(specs: readonly ServiceSpecArb[]): ServiceScenario[] {
  return specs.map((s, i) => {
    const external = s.type !== "ClusterIP";
    return {
      ...s,
      // kube-proxy ignores externalTrafficPolicy for ClusterIP services.
      externalPolicyLocal: external && s.externalPolicyLocal,
      sourceRanges: s.type === "LoadBalancer" ? s.sourceRanges : [],
      index: i,
      name: `s${i}`,
      clusterIP: `10.96.0.${10 + i}`,
      nodePort: external ? 30000 + i : 0,
      externalIPs: s.externalIP ? [`203.0.113.${10 + i}`] : [],
      loadBalancerIPs: s.type === "LoadBalancer" ? [`198.51.100.${10 + i}`] : [],
      endpointIPs: s.endpoints.map((local, j) => ({
        ip: `10.244.${local ? 1 : 2}.${10 * i + j + 2}`,
        local,
      })),
    };
  });
}

export function clusterOf(services: readonly ServiceScenario[]): Cluster {
  const svcs: Service[] = services.map((s) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: s.name, namespace: "default" },
    spec: {
      type: s.type,
      clusterIP: s.clusterIP,
      clusterIPs: [s.clusterIP],
      ipFamilies: ["IPv4"],
      ports: [
        {
          name: "p",
          protocol: s.protocol,
          port: s.port,
          targetPort: 8080,
          ...(s.nodePort !== 0 ? { nodePort: s.nodePort } : {}),
        },
      ],
      ...(s.externalIPs.length > 0 ? { externalIPs: [...s.externalIPs] } : {}),
      ...(s.type !== "ClusterIP"
        ? { externalTrafficPolicy: s.externalPolicyLocal ? "Local" : "Cluster" }
        : {}),
      internalTrafficPolicy: s.internalPolicyLocal ? "Local" : "Cluster",
      ...(s.sessionAffinity ? { sessionAffinity: "ClientIP" } : {}),
      ...(s.sourceRanges.length > 0 ? { loadBalancerSourceRanges: [...s.sourceRanges] } : {}),
      ...(s.type === "LoadBalancer" && s.externalPolicyLocal
        ? { healthCheckNodePort: 32000 + s.index }
        : {}),
    },
    ...(s.loadBalancerIPs.length > 0
      ? { status: { loadBalancer: { ingress: s.loadBalancerIPs.map((ip) => ({ ip })) } } }
      : {}),
  }));
  const slices: EndpointSlice[] = services
    .filter((s) => s.endpointIPs.length > 0)
    .map((s) => ({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: `${s.name}-1`,
        namespace: "default",
        labels: { "kubernetes.io/service-name": s.name },
      },
      addressType: "IPv4",
      endpoints: s.endpointIPs.map((e) => ({
        addresses: [e.ip],
        nodeName: e.local ? NODE_NAME : "node-b",
        conditions: { ready: true, serving: true, terminating: false },
      })),
      ports: [{ name: "p", protocol: s.protocol, port: 8080 }],
    }));
  return makeCluster({ services: svcs, endpointSlices: slices });
}

export type SourceKind = "pod" | "node" | "outside" | "outside-allowed";
export type DestinationKind =
  | "cluster-ip"
  | "cluster-ip-other-port"
  | "node-port"
  | "node-port-localhost"
  | "external-ip"
  | "load-balancer";

export interface PacketScenario {
  readonly service: ServiceScenario;
  readonly source: SourceKind;
  readonly destination: DestinationKind;
  readonly proto: "tcp" | "udp" | "sctp";
  readonly src: string;
  readonly dst: string;
  readonly dport: number;
}

const SOURCE_IPS: Readonly<Record<SourceKind, string>> = {
  pod: LOCAL_POD_IP,
  node: NODE_IP,
  outside: OUTSIDE_IP,
  "outside-allowed": ALLOWED_OUTSIDE_IP,
};

/** Every destination the service has, from every source. */
export function packetsFor(s: ServiceScenario): PacketScenario[] {
  const dests: { kind: DestinationKind; dst: string; dport: number }[] = [
    { kind: "cluster-ip", dst: s.clusterIP, dport: s.port },
    { kind: "cluster-ip-other-port", dst: s.clusterIP, dport: 9999 },
  ];
  if (s.nodePort !== 0) {
    dests.push({ kind: "node-port", dst: NODE_IP, dport: s.nodePort });
    dests.push({ kind: "node-port-localhost", dst: "127.0.0.1", dport: s.nodePort });
  }
  for (const ip of s.externalIPs) dests.push({ kind: "external-ip", dst: ip, dport: s.port });
  for (const ip of s.loadBalancerIPs) dests.push({ kind: "load-balancer", dst: ip, dport: s.port });
  const out: PacketScenario[] = [];
  for (const d of dests) {
    for (const source of ["pod", "node", "outside", "outside-allowed"] as const) {
      // Only the node itself can reach its loopback address.
      if (d.kind === "node-port-localhost" && source !== "node") continue;
      out.push({
        service: s,
        source,
        destination: d.kind,
        proto: s.protocol.toLowerCase() as "tcp" | "udp" | "sctp",
        src: SOURCE_IPS[source],
        dst: d.dst,
        dport: d.dport,
      });
    }
  }
  return out;
}
