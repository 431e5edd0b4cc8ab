/**
 * The built-in adapters' node states come with the data their texts were printed from; the
 * scenario made of such a state traces that data, with the same predictions as tracing the
 * texts (a copy of the scenario, which has no data), for random service and host port cases.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import type { Probe, Scenario } from "../../../src/backends/backend.js";
import { scenarioData } from "../../../src/backends/scenario-data.js";
import { simulatorBackend } from "../../../src/backends/simulator/backend.js";
import { nodeHostPortCase } from "../../../src/testing/arbitraries/nodeHostPortCase.js";
import { nodeServiceCase } from "../../../src/testing/arbitraries/nodeServiceCase.js";
import {
  kubeProxyIptables,
  kubeProxyIpvs,
  kubeProxyNftables,
  kubenetHostports,
} from "../../../src/testing/conformance/builtin-adapters.js";
import { sctpNode } from "../../../src/testing/conformance/fixture.js";
import { scenarioOfAdapter } from "../../../src/testing/conformance/scenario.js";
import type { ConformanceAdapter } from "../../../src/testing/conformance/adapter.js";

async function predictions(scenario: Scenario, probe: Probe): Promise<unknown> {
  const sim = simulatorBackend();
  const run = await sim.open(scenario);
  try {
    return sim.predict(run, probe);
  } finally {
    await sim.close(run);
  }
}

const cases = fc.oneof(
  nodeServiceCase().map((c) => ({ cluster: c.cluster, probe: c.probe })),
  nodeHostPortCase().map((c) => ({ cluster: c.cluster, probe: c.probe })),
);

describe.each(
  [kubeProxyIptables, kubeProxyIpvs, kubeProxyNftables, kubenetHostports].map(
    (a) => [a.name, a] as const,
  ),
)("built-in adapter data: %s", (_name: string, adapter: ConformanceAdapter) => {
  it.prop([cases], { numRuns: 10, seed: 17 })(
    "the scenario traces the adapter's data as it would its texts",
    async ({ cluster, probe }) => {
      const { scenario } = await scenarioOfAdapter(adapter, cluster, sctpNode());
      const data = scenarioData(scenario);
      if (data?.ruleSets !== undefined)
        expect(data.ruleSets.map((r) => r.family)).toEqual(scenario.rules.map((r) => r.family));
      expect(await predictions(scenario, probe)).toEqual(await predictions({ ...scenario }, probe));
    },
  );
});

describe("built-in adapter data is used", () => {
  it.prop([nodeServiceCase()], { numRuns: 3, seed: 17 })(
    "kube-proxy's scenarios carry their rule sets",
    async (c) => {
      const { scenario } = await scenarioOfAdapter(kubeProxyIptables, c.cluster, sctpNode());
      expect(scenarioData(scenario)?.ruleSets?.length).toBe(scenario.rules.length);
    },
  );
});
