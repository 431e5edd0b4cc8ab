/**
 * kube-proxy's `KubeProxyConfiguration` (kubeproxy.config.k8s.io/v1alpha1), reduced to the fields
 * that change generated rules (see proxy-config.ts). Every other real kube-proxy field is accepted
 * and ignored; fields kube-proxy does not know are warnings. Missing fields take kube-proxy's
 * defaults (`DEFAULT_PROXY_CONFIG`). Values are checked the way kube-proxy's config validation
 * does for these fields (CIDRs parsed sloppily, masqueradeBit 0..31).
 */
import { parseCIDR } from "../net/index.js";
import { ConfigReader, type KnownFields } from "./config-document.js";
import { lockedGateError } from "./feature-gates.js";
import { ValidationError, type Issue } from "./issue.js";
import {
  DEFAULT_PROXY_CONFIG,
  type DetectLocalMode,
  type KubeProxyConfiguration,
  type ProxyMode,
} from "./proxy-config.js";
import { showValue } from "./validation/field-issue.js";

export const PROXY_CONFIG_API_VERSION = "kubeproxy.config.k8s.io/v1alpha1";

const SYNC = { syncPeriod: true, minSyncPeriod: true } as const;
const KNOWN: KnownFields = {
  apiVersion: true,
  kind: true,
  featureGates: true,
  clientConnection: true,
  logging: true,
  hostnameOverride: true,
  bindAddress: true,
  healthzBindAddress: true,
  metricsBindAddress: true,
  bindAddressHardFail: true,
  enableProfiling: true,
  showHiddenMetricsForVersion: true,
  mode: true,
  iptables: { masqueradeAll: true, masqueradeBit: true, localhostNodePorts: true, ...SYNC },
  ipvs: {
    ...SYNC,
    scheduler: true,
    excludeCIDRs: true,
    strictARP: true,
    tcpTimeout: true,
    tcpFinTimeout: true,
    udpTimeout: true,
  },
  nftables: { masqueradeAll: true, masqueradeBit: true, ...SYNC },
  winkernel: true,
  detectLocalMode: true,
  detectLocal: { bridgeInterface: true, interfaceNamePrefix: true },
  clusterCIDR: true,
  nodePortAddresses: true,
  oomScoreAdj: true,
  conntrack: true,
  configSyncPeriod: true,
  portRange: true,
  syncPeriod: true,
  minSyncPeriod: true,
};

const DEFAULT_NFTABLES = { masqueradeAll: false, masqueradeBit: 14 };
const MODES: readonly string[] = ["iptables", "ipvs", "nftables"];
const DETECT_LOCAL_MODES: readonly string[] = [
  "ClusterCIDR",
  "NodeCIDR",
  "BridgeInterface",
  "InterfaceNamePrefix",
];

export interface ParsedProxyConfig {
  readonly config: KubeProxyConfiguration;
  /** Unknown fields. */
  readonly warnings: readonly Issue[];
}

export function parseProxyConfigWithWarnings(text: string, file: string): ParsedProxyConfig {
  const { reader, issues } = ConfigReader.fromText(text, file);
  if (reader === undefined) throw new ValidationError(issues);
  const r = reader;
  const d = DEFAULT_PROXY_CONFIG;
  const kind = r.string(["kind"]);
  const apiVersion = r.string(["apiVersion"]);
  if (kind !== "KubeProxyConfiguration")
    r.report(
      ["kind"],
      `Unsupported value: ${showValue(kind ?? "")}: supported values: "KubeProxyConfiguration"`,
      "unsupported-value",
    );
  if (apiVersion !== PROXY_CONFIG_API_VERSION)
    r.report(
      ["apiVersion"],
      `Unsupported value: ${showValue(apiVersion ?? "")}: supported values: "${PROXY_CONFIG_API_VERSION}"`,
      "unsupported-value",
    );
  r.unknownFields([], KNOWN, "warning");

  const rawMode = r.string(["mode"]) ?? "";
  let mode: ProxyMode = d.mode;
  if (rawMode !== "") {
    if (MODES.includes(rawMode)) mode = rawMode as ProxyMode;
    else
      r.report(
        ["mode"],
        `Unsupported value: ${showValue(rawMode)}: supported values: "iptables", "ipvs", "nftables"`,
        "unsupported-value",
      );
  }

  const rawDetect = r.string(["detectLocalMode"]) ?? "";
  let detectLocalMode: DetectLocalMode = d.detectLocalMode;
  if (rawDetect !== "") {
    if (DETECT_LOCAL_MODES.includes(rawDetect)) detectLocalMode = rawDetect as DetectLocalMode;
    else
      r.report(
        ["detectLocalMode"],
        `Unsupported value: ${showValue(rawDetect)}: supported values: ${DETECT_LOCAL_MODES.map((m) => `"${m}"`).join(", ")}`,
        "unsupported-value",
      );
  }

  const clusterCIDR = r.string(["clusterCIDR"]) ?? d.clusterCIDR;
  if (clusterCIDR !== "") {
    const parts = clusterCIDR.split(",");
    const bad = parts.filter((c) => parseCIDR(c.trim(), "lenient") === undefined);
    if (bad.length > 0)
      r.report(
        ["clusterCIDR"],
        `Invalid value: ${showValue(clusterCIDR)}: must be a valid CIDR block or a comma-separated list of CIDR blocks`,
      );
    else if (parts.length > 2)
      r.report(
        ["clusterCIDR"],
        `Invalid value: ${showValue(clusterCIDR)}: only one CIDR allowed or a valid DualStack CIDR (e.g. 10.100.0.0/16,fde4:8dba:82e1::/48)`,
      );
  }

  const nodePortAddresses = r.stringList(["nodePortAddresses"]) ?? [...d.nodePortAddresses];
  nodePortAddresses.forEach((a, i) => {
    if (a === "primary") return;
    if (parseCIDR(a, "lenient") === undefined)
      r.report(["nodePortAddresses", i], `Invalid value: ${showValue(a)}: must be a valid CIDR`);
  });
  if (nodePortAddresses.includes("primary") && nodePortAddresses.length > 1)
    r.report(
      ["nodePortAddresses"],
      `Invalid value: ${showValue(nodePortAddresses)}: can't use "primary" with other CIDRs`,
    );

  const masqueradeBit = r.integer(["iptables", "masqueradeBit"]) ?? d.iptables.masqueradeBit;
  if (masqueradeBit < 0 || masqueradeBit > 31)
    r.report(
      ["iptables", "masqueradeBit"],
      `Invalid value: ${masqueradeBit}: must be within the range [0, 31]`,
    );

  const nftMasqueradeBit =
    r.integer(["nftables", "masqueradeBit"]) ?? DEFAULT_NFTABLES.masqueradeBit;
  if (nftMasqueradeBit < 0 || nftMasqueradeBit > 31)
    r.report(
      ["nftables", "masqueradeBit"],
      `Invalid value: ${nftMasqueradeBit}: must be within the range [0, 31]`,
    );

  const excludeCIDRs = r.stringList(["ipvs", "excludeCIDRs"]) ?? [...d.ipvs.excludeCIDRs];
  excludeCIDRs.forEach((c, i) => {
    if (parseCIDR(c, "lenient") === undefined)
      r.report(
        ["ipvs", "excludeCIDRs", i],
        `Invalid value: ${showValue(c)}: must be a valid IP block`,
      );
  });

  const featureGates: Record<string, boolean> = {};
  const fg = r.record(["featureGates"]);
  for (const k of Object.keys(fg ?? {})) {
    const v = r.boolean(["featureGates", k]);
    if (v === undefined) continue;
    const locked = lockedGateError(k, v);
    if (locked !== undefined) r.report(["featureGates", k], locked);
    else featureGates[k] = v;
  }
  r.record(["iptables"]);
  r.record(["ipvs"]);
  r.record(["nftables"]);
  r.record(["detectLocal"]);

  const config: KubeProxyConfiguration = {
    mode,
    hostnameOverride: r.string(["hostnameOverride"]) ?? d.hostnameOverride,
    clusterCIDR,
    detectLocalMode,
    detectLocal: {
      bridgeInterface:
        r.string(["detectLocal", "bridgeInterface"]) ?? d.detectLocal.bridgeInterface,
      interfaceNamePrefix:
        r.string(["detectLocal", "interfaceNamePrefix"]) ?? d.detectLocal.interfaceNamePrefix,
    },
    nodePortAddresses,
    iptables: {
      masqueradeAll: r.boolean(["iptables", "masqueradeAll"]) ?? d.iptables.masqueradeAll,
      masqueradeBit,
      localhostNodePorts:
        r.boolean(["iptables", "localhostNodePorts"]) ?? d.iptables.localhostNodePorts,
    },
    ipvs: {
      scheduler: r.string(["ipvs", "scheduler"]) ?? d.ipvs.scheduler,
      strictARP: r.boolean(["ipvs", "strictARP"]) ?? d.ipvs.strictARP,
      excludeCIDRs,
    },
    featureGates,
    nftables: {
      masqueradeAll: r.boolean(["nftables", "masqueradeAll"]) ?? DEFAULT_NFTABLES.masqueradeAll,
      masqueradeBit: nftMasqueradeBit,
    },
  };
  if (detectLocalMode === "BridgeInterface" && config.detectLocal.bridgeInterface === "")
    r.report(
      ["detectLocal", "bridgeInterface"],
      'Invalid value: "": must not be empty when detectLocalMode is BridgeInterface',
    );
  if (detectLocalMode === "InterfaceNamePrefix" && config.detectLocal.interfaceNamePrefix === "")
    r.report(
      ["detectLocal", "interfaceNamePrefix"],
      'Invalid value: "": must not be empty when detectLocalMode is InterfaceNamePrefix',
    );

  const errors = r.issues.filter((i) => i.severity === "error");
  if (errors.length > 0) throw new ValidationError(r.issues);
  return { config, warnings: r.issues };
}

export function parseProxyConfig(text: string, file: string): KubeProxyConfiguration {
  return parseProxyConfigWithWarnings(text, file).config;
}
