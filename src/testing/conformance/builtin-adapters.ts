/**
 * The adapters for kube-netsim's own models of node components, so the suites can be run
 * against the reference dataplanes (and a plugin author can see a passing run):
 * kube-proxy's iptables and IPVS proxiers (with kubenet's hostport rules, as on a kubenet
 * node) and the kubenet hostport manager alone.
 */
import { scenarioOfCluster } from "../../backends/scenario-of-cluster.js";
import { hostportRulesForNode, withHostportRules } from "../../hostports/index.js";
import { formatIptablesSave } from "../../netfilter/format/save.js";
import { DUMMY_DEVICE } from "../../proxiers/ipvs/index.js";
import { proxyConfig } from "../builders/proxy-config.js";
import type { AdapterInput, ConformanceAdapter, NodeSocket, NodeState } from "./adapter.js";

function attachmentsOf(pods: readonly { ip: string; interface: string }[]): Record<string, string> {
  return Object.fromEntries(pods.map((p) => [p.ip, p.interface]));
}

function kubeProxy(mode: "iptables" | "ipvs", input: AdapterInput): NodeState {
  const s = scenarioOfCluster(input.cluster, {
    node: input.node,
    proxyConfig: proxyConfig({ mode }),
  });
  const text = (family: "IPv4" | "IPv6"): string | undefined =>
    s.rules.find((r) => r.family === family)?.text;
  const v4 = text("IPv4");
  const v6 = text("IPv6");
  return {
    iptables: {
      ...(v4 !== undefined ? { IPv4: v4 } : {}),
      ...(v6 !== undefined ? { IPv6: v6 } : {}),
    },
    ...(s.ipsets !== undefined ? { ipsets: s.ipsets } : {}),
    ...(s.ipvs !== undefined ? { ipvs: s.ipvs } : {}),
    interfaces: s.node.interfaces.filter((i) => i.name === DUMMY_DEVICE),
    attachments: attachmentsOf(s.pods),
    sockets: hostSockets(input),
  };
}

/** kubenet's host port reservations (TCP/UDP only: kubelet never opens SCTP sockets). */
function hostSockets(input: AdapterInput): NodeSocket[] {
  const hp = hostportRulesForNode(input.cluster, input.node, { impl: "kubenet" });
  return hp.sockets.map((s) => ({ protocol: s.protocol, port: s.port }));
}

export const kubeProxyIptables: ConformanceAdapter = {
  name: "kube-proxy (iptables mode)",
  features: ["services", "hostPorts"],
  nodeState: (input) => kubeProxy("iptables", input),
};

export const kubeProxyIpvs: ConformanceAdapter = {
  name: "kube-proxy (ipvs mode)",
  features: ["services", "hostPorts"],
  nodeState: (input) => kubeProxy("ipvs", input),
};

export const kubenetHostports: ConformanceAdapter = {
  name: "kubenet hostports",
  features: ["hostPorts"],
  nodeState(input: AdapterInput): NodeState {
    const hp = hostportRulesForNode(input.cluster, input.node, { impl: "kubenet" });
    const sets = withHostportRules([], hp);
    const text = (family: "IPv4" | "IPv6"): string | undefined => {
      const rs = sets.find((r) => r.family === family);
      return rs === undefined ? undefined : formatIptablesSave(rs);
    };
    const v4 = text("IPv4") ?? "*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n";
    const v6 = text("IPv6");
    return {
      iptables: { IPv4: v4, ...(v6 !== undefined ? { IPv6: v6 } : {}) },
      sockets: hp.sockets.map((s) => ({ protocol: s.protocol, port: s.port })),
    };
  },
};
