/**
 * A scenario from our own render carries the rule sets and ipsets its texts were printed from,
 * and the simulator traces that data instead of parsing the texts back: every probe's whole
 * prediction (outcomes, probabilities, rule paths) equals the prediction over the parsed texts
 * (a copy of the scenario, which has no data), for random clusters in iptables and IPVS mode.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import type { Probe, Scenario } from "../../src/backends/backend.js";
import { scenarioData } from "../../src/backends/scenario-data.js";
import { scenarioOfCluster } from "../../src/backends/scenario-of-cluster.js";
import { simulatorBackend } from "../../src/backends/simulator/backend.js";
import {
  V4,
  V6,
  clusterOf,
  scenarioOf,
  serviceSpecArb,
  type AddressPlan,
  type ServiceScenario,
} from "../differential/scenario.js";

function probesOf(services: readonly ServiceScenario[], plan: AddressPlan): Probe[] {
  return services.flatMap((s) => {
    const protocol = s.protocol.toLowerCase() as Probe["protocol"];
    const out: Probe[] = [
      { protocol, from: "node", to: s.clusterIP, port: s.port },
      { protocol, from: plan.localPodIP, to: s.clusterIP, port: s.port },
    ];
    if (s.nodePort !== 0)
      out.push({ protocol, from: "external", to: plan.nodeIP, port: s.nodePort });
    for (const ip of [...s.externalIPs, ...s.loadBalancerIPs])
      out.push({ protocol, from: "external", to: ip, port: s.port });
    return out;
  });
}

async function predictions(scenario: Scenario, probes: readonly Probe[]): Promise<unknown[]> {
  const sim = simulatorBackend();
  const run = await sim.open(scenario);
  try {
    return probes.map((p) => sim.predict(run, p));
  } finally {
    await sim.close(run);
  }
}

describe.each([
  ["IPv4", V4],
  ["IPv6", V6],
] as const)("scenario data (%s)", (_family, plan) => {
  const specs = fc.array(serviceSpecArb, { minLength: 1, maxLength: 3 });
  it.prop([specs, fc.constantFrom("iptables", "ipvs")], { numRuns: 15, seed: 17 })(
    "tracing the render's data predicts what tracing its parsed texts does",
    async (s, mode) => {
      const services = scenarioOf(s, plan);
      const proxyConfig = mode === "iptables" ? plan.iptablesConfig : plan.ipvsConfig;
      const scenario = scenarioOfCluster(clusterOf(services), { node: plan.node, proxyConfig });
      const data = scenarioData(scenario);
      expect(data?.ruleSets).toHaveLength(scenario.rules.length);
      if (mode === "ipvs") expect(data?.ipsets?.length).toBeGreaterThan(0);
      const probes = probesOf(services, plan);
      expect(probes.length).toBeGreaterThan(0);
      const fromData = await predictions(scenario, probes);
      const fromText = await predictions({ ...scenario }, probes);
      expect(fromData).toEqual(fromText);
    },
  );
});
