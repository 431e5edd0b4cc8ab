/**
 * What one per-family proxier knows about its node and configuration, derived once from the
 * KubeProxyConfiguration, the NodeEnvironment and the Node object (spec §1.1).
 */
import { parseIP, type IPFamily } from "../../net/index.js";
import type { Cluster } from "../../model/cluster.js";
import type { Node } from "../../model/kinds.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { DEFAULT_PROXY_CONFIG, type KubeProxyConfiguration } from "../../model/proxy-config.js";
import type { TopologyInput } from "./categorize.js";
import { localDetectorFor, type LocalDetector } from "./local-detector.js";
import { nodePortAddressesFor, type NodePortAddresses } from "./node-port-addresses.js";

export interface ProxierSettings {
  readonly family: IPFamily;
  /** Endpoints on this node are local. `hostnameOverride` wins over the node environment. */
  readonly nodeName: string;
  /** The first node IP of this family (the LB source-range "allow from node" check), if any. */
  readonly nodeIP: string | undefined;
  readonly node: Node | undefined;
  readonly nodeEnvironment: NodeEnvironment;
  readonly config: KubeProxyConfiguration;
  readonly localDetector: LocalDetector;
  readonly masqueradeAll: boolean;
  /** `1 << masqueradeBit`. */
  readonly masqueradeMark: number;
  /** IPv4 only, and forced off when nodePortAddresses excludes 127.0.0.0/8. */
  readonly localhostNodePorts: boolean;
  readonly nodePortAddresses: NodePortAddresses;
  readonly topology: TopologyInput;
}

export const ZONE_LABEL = "topology.kubernetes.io/zone";

export interface ProxierOptions {
  readonly proxyConfig?: KubeProxyConfiguration;
  readonly node: NodeEnvironment;
}

export function proxierSettings(
  cluster: Cluster,
  family: IPFamily,
  opts: ProxierOptions,
): ProxierSettings {
  const config = opts.proxyConfig ?? DEFAULT_PROXY_CONFIG;
  const env = opts.node;
  const nodeName = config.hostnameOverride !== "" ? config.hostnameOverride : env.nodeName;
  const node = cluster.nodes.find((n) => n.metadata?.name === nodeName);
  const nodeIP = env.nodeIPs.find((ip) => parseIP(ip, "lenient")?.family === family);
  const nodePortAddresses = nodePortAddressesFor(config.nodePortAddresses, family, env);
  return {
    family,
    nodeName,
    nodeIP,
    node,
    nodeEnvironment: env,
    config,
    localDetector: localDetectorFor(config, family, node),
    masqueradeAll: config.iptables.masqueradeAll,
    masqueradeMark: 2 ** config.iptables.masqueradeBit,
    localhostNodePorts:
      family === "IPv4" &&
      config.iptables.localhostNodePorts &&
      nodePortAddresses.containsIPv4Loopback,
    nodePortAddresses,
    topology: {
      nodeName,
      zone: node?.metadata?.labels?.[ZONE_LABEL] ?? "",
      preferSameTrafficDistribution: config.featureGates["PreferSameTrafficDistribution"] ?? true,
    },
  };
}
