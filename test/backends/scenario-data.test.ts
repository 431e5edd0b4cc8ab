/**
 * A scenario from our own render carries the rule sets, ipsets, IPVS table and nftables tables
 * its texts were printed from, and the simulator traces that data instead of parsing the texts
 * back: every probe's whole prediction (outcomes, probabilities, rule paths) equals the
 * prediction over the parsed texts (a copy of the scenario, which has no data), for random
 * clusters in iptables, IPVS and nftables mode; and with texts that would not parse, a
 * scenario with data still opens (nothing is parsed).
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import type { Probe, Scenario } from "../../src/backends/backend.js";
import { scenarioData, withScenarioData } from "../../src/backends/scenario-data.js";
import { ValidationError } from "../../src/issue/validation-error.js";
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
  const configOf = (mode: Mode) =>
    mode === "iptables"
      ? plan.iptablesConfig
      : mode === "ipvs"
        ? plan.ipvsConfig
        : { ...plan.iptablesConfig, mode: "nftables" as const };

  it.prop([specs, fc.constantFrom<Mode>("iptables", "ipvs", "nftables")], {
    numRuns: 15,
    seed: 17,
  })("tracing the render's data predicts what tracing its parsed texts does", async (s, mode) => {
    const services = scenarioOf(s, plan);
    const proxyConfig = configOf(mode);
    const scenario = scenarioOfCluster(clusterOf(services), { node: plan.node, proxyConfig });
    const data = scenarioData(scenario);
    expect(data?.ruleSets).toHaveLength(scenario.rules.length);
    if (mode === "ipvs") {
      expect(data?.ipsets?.length).toBeGreaterThan(0);
      expect(data?.ipvs?.services.length).toBeGreaterThan(0);
    }
    if (mode === "nftables") expect(data?.nftables).toHaveLength(1);
    const probes = probesOf(services, plan);
    expect(probes.length).toBeGreaterThan(0);
    const fromData = await predictions(scenario, probes);
    const fromText = await predictions({ ...scenario }, probes);
    expect(fromData).toEqual(fromText);
  });
});

type Mode = "iptables" | "ipvs" | "nftables";

describe("a scenario from our own render is not parsed back", () => {
  const services = scenarioOf(fc.sample(serviceSpecArb, { numRuns: 2, seed: 5 }), V4);

  it.each(["ipvs", "nftables"] as const)(
    "%s: texts that would not parse are not read when the data is there",
    async (mode) => {
      expect.hasAssertions();
      const proxyConfig =
        mode === "ipvs" ? V4.ipvsConfig : { ...V4.iptablesConfig, mode: "nftables" as const };
      const scenario = scenarioOfCluster(clusterOf(services), { node: V4.node, proxyConfig });
      const data = scenarioData(scenario);
      expect(data?.[mode]).toBeDefined();
      const garbled: Scenario = {
        ...scenario,
        rules: scenario.rules.map((r) => ({ ...r, text: "not iptables-restore input\n" })),
        [mode]: "not input for the parser\n",
      };
      const probes = probesOf(services, V4);
      expect(probes.length).toBeGreaterThan(0);
      // Without the data the texts are parsed, and refused...
      await expect(predictions(garbled, probes)).rejects.toThrow(ValidationError);
      // ...with it, none is read.
      const withData = withScenarioData(garbled, data!);
      expect(await predictions(withData, probes)).toEqual(await predictions(scenario, probes));
    },
  );
});
