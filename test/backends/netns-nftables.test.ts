/**
 * nftables-mode scenarios (#14): `scenarioOfCluster` with `mode: nftables` gives kube-proxy's
 * tables as `nft -f` text (plus the node's hostPort rules through iptables), the simulator
 * reads it, and on this machine's kernel `verify --auto` agrees with the simulator on the
 * examples' nftables proxy configs, including one where nftables and iptables rules share the
 * node. A rule set nft refuses is a BackendError with nft's message, and nothing is left behind.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "@jest/globals";
import { autoProbes } from "../../src/backends/auto-probes.js";
import { BackendError, type Scenario } from "../../src/backends/backend.js";
import { netnsBackend } from "../../src/backends/netns/backend.js";
import { liveNetns } from "../../src/backends/netns.js";
import { scenarioOfCluster } from "../../src/backends/scenario-of-cluster.js";
import { simulatorBackend } from "../../src/backends/simulator/backend.js";
import { verifyProbes } from "../../src/backends/verify.js";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { nftTest } from "../proxiers/nftables/kernel-helpers.js";

const EXAMPLES = new URL("../../examples/", import.meta.url).pathname;

function example(dir: string, manifests: readonly string[], proxy: string) {
  const cluster = loadCluster(manifests.map((m) => `${EXAMPLES}${dir}/${m}`));
  const nodeFile = `${EXAMPLES}${dir}/node.yaml`;
  const node = parseNodeEnvironment(readFileSync(nodeFile, "utf8"), nodeFile);
  const proxyFile = `${EXAMPLES}${proxy}`;
  const proxyConfig = parseProxyConfig(readFileSync(proxyFile, "utf8"), proxyFile);
  const scenario = scenarioOfCluster(cluster, { node, proxyConfig });
  return { cluster, proxyConfig, scenario };
}

const NLB = () =>
  example("nodeport-loadbalancer", ["cluster.yaml"], "nodeport-loadbalancer/proxy-nftables.yaml");
/** The SCTP test plan's node has hostPort pods: kubenet's iptables rules next to nftables. */
const PLAN = () => example("sctp-test-plan", ["cluster.yaml"], "sctp-service/proxy-nftables.yaml");

describe("nftables scenarios", () => {
  test("the scenario carries kube-proxy's tables as nft text; the simulator reads them", async () => {
    const { cluster, proxyConfig, scenario } = NLB();
    expect(scenario.nftables).toMatch(/^add table ip kube-proxy /);
    expect(scenario.rules).toEqual([]);
    const sim = simulatorBackend();
    expect((await sim.capabilities()).find((c) => c.name === "nftables")).toEqual({
      name: "nftables",
      available: true,
    });
    const running = await sim.open(scenario);
    const probes = autoProbes(cluster, scenario, { proxyConfig });
    expect(probes.length).toBeGreaterThan(0);
    const nodePort = probes.find((p) => p.port === 30080 && p.from === "external");
    expect(nodePort).toBeDefined();
    const r = sim.predict(running, nodePort!);
    expect(r.outcomes.map((o) => [o.destination, o.probability])).toEqual([
      ["10.244.1.5:8080", 0.5],
      ["10.244.2.5:8080", 0.5],
    ]);
    await sim.close(running);
  });

  test("a node with hostPort pods has iptables rules as well", () => {
    const { scenario } = PLAN();
    expect(scenario.nftables).toMatch(/^add table ip kube-proxy /);
    expect(scenario.rules.map((r) => r.family)).toEqual(["IPv4"]);
    expect(scenario.rules[0]?.text).toContain("KUBE-HOSTPORTS");
  });
});

describe("nftables scenarios on the kernel", () => {
  for (const [name, make, atLeast] of [
    ["nodeport-loadbalancer (proxy-nftables.yaml)", NLB, 15],
    ["sctp-test-plan with nftables mode and iptables hostports", PLAN, 2],
  ] as const)
    nftTest(
      `verify --auto agrees: ${name}`,
      async () => {
        expect.hasAssertions();
        const { cluster, proxyConfig, scenario } = make();
        const probes = autoProbes(cluster, scenario, { proxyConfig });
        const r = await verifyProbes(netnsBackend({ timeoutMs: 800 }), scenario, probes);
        const bad = r.rows
          .filter((row) => row.agreement === "disagree")
          .map(
            (b) => `${JSON.stringify(b.probe)}: predicted ${b.predicted}, observed ${b.observed}`,
          );
        expect(bad).toEqual([]);
        expect(r.summary.agreed).toBeGreaterThanOrEqual(atLeast);
        expect(liveNetns()).toEqual([]);
      },
      300_000,
    );

  nftTest("a rule set nft refuses: BackendError with nft's message, nothing left", async () => {
    const { scenario } = NLB();
    const broken: Scenario = {
      ...scenario,
      nftables: `${scenario.nftables ?? ""}add rule ip kube-proxy services jump no-such-chain\n`,
    };
    const backend = netnsBackend();
    const error = await (async () => backend.open(broken))().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BackendError);
    expect((error as Error).message).toMatch(
      /^nft -f refused the nftables rule set: .*No such file or directory/s,
    );
    expect(liveNetns()).toEqual([]);
  });
});
