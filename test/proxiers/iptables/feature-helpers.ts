/** Small clusters written as YAML, rendered with the upstream fake proxier's settings. */
import { parseCluster } from "../../../src/model/load.js";
import type { Cluster } from "../../../src/model/cluster.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import type { KubeProxyConfiguration } from "../../../src/model/proxy-config.js";
import {
  renderIptablesFamilies,
  type IptablesFamilyRestore,
} from "../../../src/proxiers/iptables/render.js";
import type { RestoreOptions } from "../../../src/proxiers/iptables/render-restore.js";
import { FAKE_CONFIG, FAKE_NODE } from "./helpers.js";
import { buildNodeDataplane } from "../../../src/node/node-dataplane.js";
import { trace } from "../../../src/netfilter/trace/tracer.js";
import type { PacketSpec } from "../../../src/netfilter/trace/result.js";

export function yamlCluster(text: string): Cluster {
  return parseCluster([{ file: "test.yaml", text }], { validation: "warn" });
}

export interface FeatureOptions extends RestoreOptions {
  readonly config?: Partial<KubeProxyConfiguration>;
  readonly iptables?: Partial<KubeProxyConfiguration["iptables"]>;
  readonly node?: Partial<NodeEnvironment>;
  readonly kernel?: Partial<NodeEnvironment["kernel"]>;
}

function settingsOf(o: FeatureOptions): {
  proxyConfig: KubeProxyConfiguration;
  node: NodeEnvironment;
} {
  return {
    proxyConfig: {
      ...FAKE_CONFIG,
      ...o.config,
      iptables: { ...FAKE_CONFIG.iptables, ...o.iptables },
    },
    node: { ...FAKE_NODE, ...o.node, kernel: { ...FAKE_NODE.kernel, ...o.kernel } },
  };
}

export interface Outcome {
  readonly verdict: string;
  readonly destination?: string;
  readonly masquerade: boolean;
  readonly probability: number;
}

/** The real tracer's outcomes for one packet through the rendered node tables. */
export function traceOutcomes(yaml: string, o: FeatureOptions, packet: PacketSpec): Outcome[] {
  const dp = buildNodeDataplane(yamlCluster(yaml), settingsOf(o));
  return trace(dp, packet).outcomes.map((x) => ({
    verdict: x.verdict,
    ...(x.destination !== undefined ? { destination: x.destination } : {}),
    masquerade: x.masquerade,
    probability: Math.round(x.probability * 1e6) / 1e6,
  }));
}

export function renderFamilies(yaml: string, o: FeatureOptions = {}): IptablesFamilyRestore[] {
  const proxyConfig: KubeProxyConfiguration = {
    ...FAKE_CONFIG,
    ...o.config,
    iptables: { ...FAKE_CONFIG.iptables, ...o.iptables },
  };
  const node: NodeEnvironment = {
    ...FAKE_NODE,
    ...o.node,
    kernel: { ...FAKE_NODE.kernel, ...o.kernel },
  };
  return renderIptablesFamilies(yamlCluster(yaml), {
    proxyConfig,
    node,
    ...(o.masqueradeMarkFormat !== undefined
      ? { masqueradeMarkFormat: o.masqueradeMarkFormat }
      : {}),
    ...(o.largeClusterMode !== undefined ? { largeClusterMode: o.largeClusterMode } : {}),
  });
}

export function renderOne(yaml: string, o: FeatureOptions = {}): string {
  return renderFamilies(yaml, o)[0]!.restore;
}

export function svc(name: string, spec: string, extra = ""): string {
  return `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ns1}
spec:
${spec
  .trim()
  .split("\n")
  .map((l) => `  ${l}`)
  .join("\n")}
${extra}
---
`;
}

export function slice(
  service: string,
  endpoints: string,
  ports = "[{name: p80, port: 80, protocol: TCP}]",
  family = "IPv4",
): string {
  return `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: ${service}-${family}, namespace: ns1, labels: {kubernetes.io/service-name: ${service}}}
addressType: ${family}
endpoints: ${endpoints}
ports: ${ports}
---
`;
}
