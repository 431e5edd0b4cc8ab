/**
 * The adapters for kube-netsim's own models of node components, so the suites can be run
 * against the reference dataplanes (and a plugin author can see a passing run):
 * kube-proxy's iptables, IPVS and nftables proxiers (with kubenet's hostport rules, as on a
 * kubenet node) and the kubenet hostport manager alone.
 */
import { scenarioData } from "../../backends/scenario-data.js";
import { scenarioOfCluster } from "../../backends/scenario-of-cluster.js";
import { hostportRulesForNode, withHostportRules } from "../../hostports/index.js";
import { formatIptablesSave } from "../../netfilter/format/save.js";
import type { RuleSet } from "../../netfilter/model.js";
import { DUMMY_DEVICE } from "../../proxiers/ipvs/index.js";
import { renderNftables } from "../../proxiers/nftables/render-nftables.js";
import { proxyConfig } from "../builders/proxy-config.js";
import type { AdapterInput, ConformanceAdapter, NodeSocket, NodeState } from "./adapter.js";
import { withNodeStateData } from "./node-state-data.js";

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
  return withNodeStateData(
    {
      iptables: {
        ...(v4 !== undefined ? { IPv4: v4 } : {}),
        ...(v6 !== undefined ? { IPv6: v6 } : {}),
      },
      ...(s.ipsets !== undefined ? { ipsets: s.ipsets } : {}),
      ...(s.ipvs !== undefined ? { ipvs: s.ipvs } : {}),
      interfaces: s.node.interfaces.filter((i) => i.name === DUMMY_DEVICE),
      attachments: attachmentsOf(s.pods),
      sockets: hostSockets(input),
    },
    scenarioData(s),
  );
}

/** kubenet's host port reservations (TCP/UDP only: kubelet never opens SCTP sockets). */
function hostSockets(input: AdapterInput): NodeSocket[] {
  const hp = hostportRulesForNode(input.cluster, input.node, { impl: "kubenet" });
  return hp.sockets.map((s) => ({ protocol: s.protocol, port: s.port }));
}

export const kubeProxyIptables: ConformanceAdapter = {
  name: "kube-proxy (iptables mode)",
  features: ["services", "hostPorts"],
  proxier: "iptables",
  nodeState: (input) => kubeProxy("iptables", input),
};

export const kubeProxyIpvs: ConformanceAdapter = {
  name: "kube-proxy (ipvs mode)",
  features: ["services", "hostPorts"],
  proxier: "ipvs",
  nodeState: (input) => kubeProxy("ipvs", input),
};

/** kubenet's hostport rule sets, one per family with rules. */
function hostportSets(input: AdapterInput): RuleSet[] {
  const hp = hostportRulesForNode(input.cluster, input.node, { impl: "kubenet" });
  return withHostportRules([], hp);
}

/** kubenet's hostport rules (iptables-save text per family), or undefined for a family without any. */
function hostportTexts(sets: readonly RuleSet[]): NonNullable<NodeState["iptables"]> {
  const text = (family: "IPv4" | "IPv6"): string | undefined => {
    const rs = sets.find((r) => r.family === family);
    return rs === undefined ? undefined : formatIptablesSave(rs);
  };
  const v4 = text("IPv4");
  const v6 = text("IPv6");
  return {
    ...(v4 !== undefined ? { IPv4: v4 } : {}),
    ...(v6 !== undefined ? { IPv6: v6 } : {}),
  };
}

/**
 * kube-proxy's nftables proxier: its tables as `nft list ruleset` shows them once loaded, next
 * to kubenet's hostport rules, which kubelet still writes with iptables on such a node.
 */
export const kubeProxyNftables: ConformanceAdapter = {
  name: "kube-proxy (nftables mode)",
  features: ["services", "hostPorts"],
  proxier: "nftables",
  nodeState(input: AdapterInput): NodeState {
    const rendered = renderNftables(input.cluster, {
      node: input.node,
      proxyConfig: proxyConfig({ mode: "nftables" }),
    });
    const pods = scenarioOfCluster(input.cluster, {
      node: input.node,
      proxyConfig: proxyConfig(),
    }).pods;
    const sets = hostportSets(input);
    return withNodeStateData(
      {
        iptables: hostportTexts(sets),
        nftables: rendered.list,
        attachments: attachmentsOf(pods),
        sockets: hostSockets(input),
      },
      { ruleSets: sets },
    );
  },
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
    return withNodeStateData(
      {
        iptables: { IPv4: v4, ...(v6 !== undefined ? { IPv6: v6 } : {}) },
        sockets: hp.sockets.map((s) => ({ protocol: s.protocol, port: s.port })),
      },
      // Without IPv4 rules the IPv4 text is a stand-in: no data for it, so none is used.
      { ruleSets: sets },
    );
  },
};
