/**
 * The data a built-in adapter's node state texts were printed from (kube-netsim's own models):
 * the scenario made of that state hands it on, so the simulator traces it instead of parsing
 * the texts back. A plugin's adapter has none: its texts are input, parsed.
 */
import type { ScenarioData } from "../../backends/scenario-data.js";
import type { NodeState } from "./adapter.js";

const known = new WeakMap<NodeState, ScenarioData>();

/** `state` with the data of its `iptables` texts (and `ipsets`) remembered. */
export function withNodeStateData(state: NodeState, data: ScenarioData | undefined): NodeState {
  if (data !== undefined) known.set(state, data);
  return state;
}

export function nodeStateData(state: NodeState): ScenarioData | undefined {
  return known.get(state);
}
