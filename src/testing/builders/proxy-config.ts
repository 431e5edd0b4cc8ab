/**
 * `proxyConfig({...})`: a KubeProxyConfiguration with kube-proxy's defaults for everything left
 * out (`proxyConfig()` is iptables mode with every default). Options are the YAML fields;
 * they are validated as `--proxy-config` is (a ValidationError naming the field path).
 */
import type { KubeProxyConfiguration } from "../../model/proxy-config.js";
import { parseProxyConfig, PROXY_CONFIG_API_VERSION } from "../../model/load-proxy-config.js";

export interface ProxyConfigOptions {
  /** `iptables` (default) or `ipvs` (or any mode this version of kube-netsim models). */
  readonly mode?: string;
  readonly hostnameOverride?: string;
  readonly clusterCIDR?: string;
  readonly detectLocalMode?: "ClusterCIDR" | "NodeCIDR" | "BridgeInterface" | "InterfaceNamePrefix";
  readonly detectLocal?: {
    readonly bridgeInterface?: string;
    readonly interfaceNamePrefix?: string;
  };
  readonly nodePortAddresses?: readonly string[];
  readonly iptables?: {
    readonly masqueradeAll?: boolean;
    readonly masqueradeBit?: number;
    readonly localhostNodePorts?: boolean;
  };
  readonly ipvs?: {
    readonly scheduler?: string;
    readonly strictARP?: boolean;
    readonly excludeCIDRs?: readonly string[];
  };
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

export function proxyConfig(options: ProxyConfigOptions = {}): KubeProxyConfiguration {
  const doc = { apiVersion: PROXY_CONFIG_API_VERSION, kind: "KubeProxyConfiguration", ...options };
  return parseProxyConfig(JSON.stringify(doc, null, 2), "<proxyConfig()>");
}
