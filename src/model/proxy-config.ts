/**
 * The fields of kube-proxy's `KubeProxyConfiguration` (kubeproxy.config.k8s.io/v1alpha1) that
 * change generated rules. `defaultProxyConfig` holds kube-proxy's own defaults.
 */

export type ProxyMode = "iptables" | "ipvs" | "nftables";
export type DetectLocalMode =
  "ClusterCIDR" | "NodeCIDR" | "BridgeInterface" | "InterfaceNamePrefix" | "";

export interface KubeProxyConfiguration {
  readonly mode: ProxyMode;
  readonly hostnameOverride: string;
  /** Comma-separated in the file; one entry per family at most. */
  readonly clusterCIDR: string;
  readonly detectLocalMode: DetectLocalMode;
  readonly detectLocal: {
    readonly bridgeInterface: string;
    readonly interfaceNamePrefix: string;
  };
  /** CIDRs, or the special value "primary". Empty: all local addresses. */
  readonly nodePortAddresses: readonly string[];
  readonly iptables: {
    readonly masqueradeAll: boolean;
    readonly masqueradeBit: number;
    readonly localhostNodePorts: boolean;
  };
  readonly ipvs: {
    readonly scheduler: string;
    readonly strictARP: boolean;
    readonly excludeCIDRs: readonly string[];
  };
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Optional so configurations built before nftables mode existed stay valid. */
  readonly nftables?: { readonly masqueradeAll: boolean; readonly masqueradeBit: number };
}

export const DEFAULT_PROXY_CONFIG: KubeProxyConfiguration = {
  mode: "iptables",
  hostnameOverride: "",
  clusterCIDR: "",
  detectLocalMode: "",
  detectLocal: { bridgeInterface: "", interfaceNamePrefix: "" },
  nodePortAddresses: [],
  iptables: { masqueradeAll: false, masqueradeBit: 14, localhostNodePorts: true },
  ipvs: { scheduler: "", strictARP: false, excludeCIDRs: [] },
  featureGates: {},
  nftables: { masqueradeAll: false, masqueradeBit: 14 },
};
