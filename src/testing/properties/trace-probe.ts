/**
 * What one probe does through an adapter's node state on a backend (default: the simulator):
 * the shared step of the properties, which then compare it with a reference.
 */
import type { Backend, Observation, Probe } from "../../backends/backend.js";
import { simulatorBackend } from "../../backends/simulator/backend.js";
import type { Cluster } from "../../model/cluster.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import type { IPFamily } from "../../net/index.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { propertyNode } from "../conformance/fixture.js";
import { closeRun, openRun } from "../conformance/probe-check.js";
import { scenarioOfAdapter } from "../conformance/scenario.js";

export interface PropertyOptions {
  readonly backend?: Backend;
  /**
   * The cluster's and the node's IP families, for the Service and hostPort properties (default
   * `["IPv4"]`): each case probes one of them (see nodeServiceCase, nodeHostPortCase). The
   * NetworkPolicy properties are IPv4.
   */
  readonly families?: readonly IPFamily[];
}

export async function observeProbe(
  adapter: ConformanceAdapter,
  cluster: Cluster,
  node: NodeEnvironment,
  probe: Probe,
  options: PropertyOptions = {},
): Promise<Observation> {
  const { scenario } = await scenarioOfAdapter(adapter, cluster, node);
  const run = await openRun(options.backend ?? simulatorBackend(), scenario, adapter.name);
  try {
    const o = await run.backend.probe(run.running, probe);
    return o.kind === "skipped" ? await run.simulator.probe(run.simulated, probe) : o;
  } finally {
    await closeRun(run);
  }
}

/** The Service and hostPort properties' families: `options.families`, IPv4 by default. */
export function propertyFamilies(options: PropertyOptions): readonly IPFamily[] {
  return options.families ?? ["IPv4"];
}

/** A probe observed on the properties' node (propertyNode) of the options' families. */
export function observeOnPropertyNode(
  adapter: ConformanceAdapter,
  cluster: Cluster,
  probe: Probe,
  options: PropertyOptions,
): Promise<Observation> {
  return observeProbe(adapter, cluster, propertyNode(propertyFamilies(options)), probe, options);
}

export function reached(o: Observation, target: string): boolean {
  return o.kind === "delivered" && o.to === target;
}
