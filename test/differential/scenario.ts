/**
 * Random clusters and packets for the differential test of the two kube-proxy modes. The node
 * is fixed per family (IPv4: eth0 192.168.0.10/24, the pod bridge cni0 10.244.1.1/24, lo; IPv6
 * the same in fd00::/16 with a link-local address on eth0); services vary in type,
 * protocol, traffic policies, externalIPs, LoadBalancer ingress and source ranges, and have zero
 * to three endpoints on this node (10.244.1.0/24) or another (10.244.2.0/24).
 */
import * as fc from "fast-check";
import { makeCluster, type Cluster } from "../../src/model/cluster.js";
import type { EndpointSlice, Service } from "../../src/model/kinds.js";
import type { NodeEnvironment } from "../../src/model/node-environment.js";
import { DEFAULT_PROXY_CONFIG, type KubeProxyConfiguration } from "../../src/model/proxy-config.js";
import type { Protocol } from "../../src/net/index.js";

export const NODE_NAME = "test-node";

/** Every address the scenarios use, per IP family. */
export interface AddressPlan {
  readonly family: "IPv4" | "IPv6";
  readonly nodeIP: string;
  readonly localPodIP: string;
  readonly outsideIP: string;
  /** An outside client inside the first source-range choice. */
  readonly allowedOutsideIP: string;
  readonly loopback: string;
  readonly node: NodeEnvironment;
  readonly iptablesConfig: KubeProxyConfiguration;
  readonly ipvsConfig: KubeProxyConfiguration;
  readonly sourceRangeChoices: readonly (readonly string[])[];
  clusterIP(i: number): string;
  externalIP(i: number): string;
  loadBalancerIP(i: number): string;
  endpointIP(local: boolean, i: number, j: number): string;
}

const KERNEL = {
  iptablesRandomFully: false,
  nfacct: [],
  conntrackTCPBeLiberal: true,
  ipvs: true,
  sctp: true,
};

function configs(clusterCIDR: string) {
  const base: KubeProxyConfiguration = {
    ...DEFAULT_PROXY_CONFIG,
    clusterCIDR,
    detectLocalMode: "ClusterCIDR",
  };
  return {
    iptablesConfig: { ...base, mode: "iptables" as const },
    ipvsConfig: {
      ...base,
      mode: "ipvs" as const,
      ipvs: { scheduler: "rr", strictARP: false, excludeCIDRs: [] },
    },
  };
}

export const V4: AddressPlan = {
  family: "IPv4",
  nodeIP: "192.168.0.10",
  localPodIP: "10.244.1.100",
  outsideIP: "198.18.0.5",
  allowedOutsideIP: "203.0.113.50",
  loopback: "127.0.0.1",
  node: {
    nodeName: NODE_NAME,
    ipFamilies: ["IPv4"],
    nodeIPs: ["192.168.0.10"],
    interfaces: [
      { name: "lo", addresses: ["127.0.0.1/8"] },
      { name: "eth0", addresses: ["192.168.0.10/24"] },
      { name: "cni0", addresses: ["10.244.1.1/24"] },
    ],
    kernel: KERNEL,
  },
  ...configs("10.244.0.0/16"),
  sourceRangeChoices: [["203.0.113.0/24"], ["192.168.0.0/24"], ["203.0.113.50/32", "10.0.0.0/8"]],
  clusterIP: (i) => `10.96.0.${10 + i}`,
  externalIP: (i) => `203.0.113.${10 + i}`,
  loadBalancerIP: (i) => `198.51.100.${10 + i}`,
  endpointIP: (local, i, j) => `10.244.${local ? 1 : 2}.${10 * i + j + 2}`,
};

export const V6: AddressPlan = {
  family: "IPv6",
  nodeIP: "fd00::10",
  localPodIP: "fd00:244:1::100",
  outsideIP: "2001:db8:18::5",
  allowedOutsideIP: "2001:db8:113::50",
  loopback: "::1",
  node: {
    nodeName: NODE_NAME,
    ipFamilies: ["IPv6"],
    nodeIPs: ["fd00::10"],
    interfaces: [
      { name: "lo", addresses: ["::1/128"] },
      { name: "eth0", addresses: ["fd00::10/64", "fe80::10/64"] },
      { name: "cni0", addresses: ["fd00:244:1::1/64"] },
    ],
    kernel: KERNEL,
  },
  ...configs("fd00:244::/32"),
  sourceRangeChoices: [
    ["2001:db8:113::/64"],
    ["fd00::/64"],
    ["2001:db8:113::50/128", "fd00:244::/32"],
  ],
  clusterIP: (i) => `fd00:96::${(10 + i).toString(16)}`,
  externalIP: (i) => `2001:db8:113::${(10 + i).toString(16)}`,
  loadBalancerIP: (i) => `2001:db8:100::${(10 + i).toString(16)}`,
  endpointIP: (local, i, j) => `fd00:244:${local ? 1 : 2}::${(10 * i + j + 2).toString(16)}`,
};

/** IPv4 names the tests use directly. */
export const NODE = V4.node;
export const NODE_IP = V4.nodeIP;
export const LOCAL_POD_IP = V4.localPodIP;
export const OUTSIDE_IP = V4.outsideIP;
export const ALLOWED_OUTSIDE_IP = V4.allowedOutsideIP;
export const IPTABLES_CONFIG = V4.iptablesConfig;
export const IPVS_CONFIG = V4.ipvsConfig;

export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer";

export interface ServiceSpecArb {
  readonly type: ServiceType;
  readonly protocol: Protocol;
  readonly port: number;
  readonly externalIP: boolean;
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
  readonly sourceRanges: number;
  readonly sessionAffinity: boolean;
  /** true = on this node. */
  readonly endpoints: readonly boolean[];
}

export interface ServiceScenario extends Omit<ServiceSpecArb, "sourceRanges"> {
  readonly plan: AddressPlan;
  readonly sourceRanges: readonly string[];
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
  /** An index into the plan's source-range choices; -1 none. */
  sourceRanges: fc.constantFrom(-1, -1, 0, 1, 2),
  sessionAffinity: fc.boolean(),
  endpoints: fc.array(fc.boolean(), { maxLength: 3 }),
});

export function scenarioOf(
  specs: readonly ServiceSpecArb[],
  plan: AddressPlan = V4,
): ServiceScenario[] {
  return specs.map((s, i) => {
    const external = s.type !== "ClusterIP";
    return {
      ...s,
      // kube-proxy ignores externalTrafficPolicy for ClusterIP services.
      externalPolicyLocal: external && s.externalPolicyLocal,
      plan,
      sourceRanges:
        s.type === "LoadBalancer" && s.sourceRanges >= 0
          ? (plan.sourceRangeChoices[s.sourceRanges] ?? [])
          : [],
      index: i,
      name: `s${i}`,
      clusterIP: plan.clusterIP(i),
      nodePort: external ? 30000 + i : 0,
      externalIPs: s.externalIP ? [plan.externalIP(i)] : [],
      loadBalancerIPs: s.type === "LoadBalancer" ? [plan.loadBalancerIP(i)] : [],
      endpointIPs: s.endpoints.map((local, j) => ({
        ip: plan.endpointIP(local, i, j),
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
      ipFamilies: [s.plan.family],
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
      addressType: s.plan.family,
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

function sourceIP(plan: AddressPlan, kind: SourceKind): string {
  switch (kind) {
    case "pod":
      return plan.localPodIP;
    case "node":
      return plan.nodeIP;
    case "outside":
      return plan.outsideIP;
    case "outside-allowed":
      return plan.allowedOutsideIP;
  }
}

/** Every destination the service has, from every source. */
export function packetsFor(s: ServiceScenario): PacketScenario[] {
  const dests: { kind: DestinationKind; dst: string; dport: number }[] = [
    { kind: "cluster-ip", dst: s.clusterIP, dport: s.port },
    { kind: "cluster-ip-other-port", dst: s.clusterIP, dport: 9999 },
  ];
  if (s.nodePort !== 0) {
    dests.push({ kind: "node-port", dst: s.plan.nodeIP, dport: s.nodePort });
    dests.push({ kind: "node-port-localhost", dst: s.plan.loopback, dport: s.nodePort });
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
        src: sourceIP(s.plan, source),
        dst: d.dst,
        dport: d.dport,
      });
    }
  }
  return out;
}
