/**
 * An adapter's node state as a backend Scenario: its rule texts, ipsets and IPVS table, the
 * node's interfaces plus those the dataplane adds, and the node's pods attached on the
 * interfaces the adapter names. Workloads and ports come from the cluster as for any scenario.
 */
import { withScenarioData, type ScenarioData } from "../../backends/scenario-data.js";
import { scenarioOfCluster } from "../../backends/scenario-of-cluster.js";
import type { Scenario } from "../../backends/backend.js";
import type { Cluster } from "../../model/cluster.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { proxyConfig } from "../builders/proxy-config.js";
import type { AdapterInput, ConformanceAdapter, NodeState } from "./adapter.js";
import { nodeStateData } from "./node-state-data.js";

export function adapterInput(cluster: Cluster, node: NodeEnvironment): AdapterInput {
  return {
    cluster,
    node,
    pods: cluster.pods.filter((p) => p.spec?.nodeName === node.nodeName),
  };
}

export function scenarioOfState(
  cluster: Cluster,
  node: NodeEnvironment,
  state: NodeState,
): Scenario {
  const rules = (["IPv4", "IPv6"] as const).flatMap((family) => {
    const text = state.iptables?.[family];
    return text === undefined ? [] : [{ family, text }];
  });
  const nftables = state.nftables;
  if (rules.length === 0 && (nftables === undefined || nftables.trim() === ""))
    throw new Error(
      "the adapter returned no iptables-save text for any family and no nftables rule set",
    );
  // Workloads, remote endpoints and ports as kube-netsim derives them for any node.
  const base = scenarioOfCluster(cluster, { node, proxyConfig: proxyConfig() });
  const attachments = state.attachments ?? {};
  const scenario: Scenario = {
    remoteEndpoints: base.remoteEndpoints,
    ports: base.ports,
    node: { ...node, interfaces: [...node.interfaces, ...(state.interfaces ?? [])] },
    rules,
    ...(state.ipsets !== undefined ? { ipsets: state.ipsets } : {}),
    ...(state.ipvs !== undefined ? { ipvs: state.ipvs } : {}),
    ...(nftables !== undefined ? { nftables } : {}),
    pods: base.pods.map((p) => ({ ...p, interface: attachments[p.ip] ?? p.interface })),
  };
  return withScenarioData(scenario, dataInRuleOrder(nodeStateData(state), rules));
}

/** A built-in adapter's data with its rule sets in the order of the scenario's rule texts. */
function dataInRuleOrder(data: ScenarioData | undefined, rules: Scenario["rules"]): ScenarioData {
  if (data === undefined) return {};
  const ruleSets = rules.map((r) => data.ruleSets?.find((rs) => rs.family === r.family));
  if (ruleSets.some((rs) => rs === undefined)) return {};
  return {
    ruleSets: ruleSets.filter((rs) => rs !== undefined),
    ...(data.ipsets !== undefined && { ipsets: data.ipsets }),
  };
}

export async function scenarioOfAdapter(
  adapter: ConformanceAdapter,
  cluster: Cluster,
  node: NodeEnvironment,
): Promise<{ scenario: Scenario; state: NodeState }> {
  const state = await adapter.nodeState(adapterInput(cluster, node));
  return { scenario: scenarioOfState(cluster, node, state), state };
}
