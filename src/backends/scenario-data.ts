/**
 * The data a scenario's texts were printed from, when the scenario came from our own render
 * (`scenarioOfCluster`): the simulator uses it instead of parsing those texts back. A scenario
 * built or changed elsewhere (a new object) has none, and its texts are parsed as input.
 */
import type { Ipset } from "../netfilter/ipset/index.js";
import type { IpvsTable } from "../netfilter/ipvs/index.js";
import type { RuleSet } from "../netfilter/model.js";
import type { Table } from "../netfilter/nftables/model.js";
import type { Scenario } from "./backend.js";

export interface ScenarioData {
  /** The rule sets `Scenario.rules` print, in the same order. */
  readonly ruleSets?: readonly RuleSet[];
  /** The sets `Scenario.ipsets` prints. */
  readonly ipsets?: readonly Ipset[];
  /** The IPVS table `Scenario.ipvs` prints. */
  readonly ipvs?: IpvsTable;
  /** The nftables tables `Scenario.nftables` prints (in its order). */
  readonly nftables?: readonly Table[];
}

const known = new WeakMap<Scenario, ScenarioData>();

/** `scenario` with the data its texts were printed from remembered. */
export function withScenarioData<S extends Scenario>(scenario: S, data: ScenarioData): S {
  known.set(scenario, data);
  return scenario;
}

export function scenarioData(scenario: Scenario): ScenarioData | undefined {
  return known.get(scenario);
}
