/**
 * The netns backend as an oracle for the simulator: random clusters from the kit's arbitraries
 * (every service type and traffic policy, session affinity, externalIPs, LoadBalancer source
 * ranges, endpoints here, elsewhere and not ready, services without endpoints, masqueradeAll on
 * or off), rendered by the iptables proxier, probed with `verify --auto`'s probe set through
 * real namespaces: 0 disagreements. TCP and UDP (this kernel has no SCTP sockets).
 *
 * CI runs a few clusters with a fixed seed. A longer soak: KNS_NETNS_SOAK=<runs> (e.g. 50; about
 * 5-10 s per cluster), which also prints the number of clusters and probes.
 */
import { expect } from "@jest/globals";
import fc from "fast-check";
import { autoProbes } from "../../src/backends/auto-probes.js";
import { netnsBackend } from "../../src/backends/netns/backend.js";
import { scenarioOfCluster } from "../../src/backends/scenario-of-cluster.js";
import { verifyProbes } from "../../src/backends/verify.js";
import type { NodeEnvironment } from "../../src/model/node-environment.js";
import { nodeEnv } from "../../src/testing/builders/node-env.js";
import { DEFAULT_PROXY_CONFIG, type KubeProxyConfiguration } from "../../src/model/proxy-config.js";
import { kubeCluster } from "../../src/testing/arbitraries/index.js";
import { kernelTest } from "../helpers/kernel.js";

const NODE: NodeEnvironment = nodeEnv({
  name: "test-node",
  ips: ["192.168.0.10"],
  interfaces: [
    { name: "lo", addresses: ["127.0.0.1/8"] },
    { name: "eth0", addresses: ["192.168.0.10/24"] },
  ],
  kernel: { ipvs: false, sctp: false },
});

const SOAK = Number(process.env.KNS_NETNS_SOAK ?? "0");
const RUNS = SOAK > 0 ? SOAK : 3;

kernelTest(
  `random clusters through the iptables proxier: the kernel agrees with the simulator (${RUNS} clusters)`,
  ["root", "ip", "iptables"],
  async () => {
    expect.hasAssertions();
    let scenarios = 0;
    let probes = 0;
    let agreed = 0;
    await fc.assert(
      fc.asyncProperty(
        kubeCluster({ minServices: 1, maxServices: 3, service: { protocols: ["TCP", "UDP"] } }),
        fc.boolean(),
        async (generated, masqueradeAll) => {
          const proxyConfig: KubeProxyConfiguration = {
            ...DEFAULT_PROXY_CONFIG,
            mode: "iptables",
            hostnameOverride: "test-node",
            clusterCIDR: "10.0.0.0/8",
            detectLocalMode: "ClusterCIDR",
            iptables: { ...DEFAULT_PROXY_CONFIG.iptables, masqueradeAll },
          };
          const scenario = scenarioOfCluster(generated.cluster, { node: NODE, proxyConfig });
          const list = autoProbes(generated.cluster, scenario, { proxyConfig });
          const r = await verifyProbes(netnsBackend({ timeoutMs: 1500 }), scenario, list);
          scenarios++;
          probes += r.summary.probes;
          agreed += r.summary.agreed;
          const bad = r.rows
            .filter((row) => row.agreement === "disagree")
            .map(
              (row) =>
                `${JSON.stringify(row.probe)}: predicted ${row.predicted}; observed ${row.observed}`,
            );
          expect({
            pods: scenario.pods,
            remote: scenario.remoteEndpoints,
            bad: bad.slice(0, 3),
          }).toEqual({
            pods: scenario.pods,
            remote: scenario.remoteEndpoints,
            bad: [],
          });
        },
      ),
      { seed: 20261201, numRuns: RUNS, endOnFailure: true },
    );
    expect(scenarios).toBe(RUNS);
    // Nearly every probe really ran; the rest leave the node for addresses no one hosts.
    expect(agreed).toBeGreaterThan(probes * 0.9);
    expect(probes).toBeGreaterThan(0);
    if (SOAK > 0)
      console.log(`netns soak: ${scenarios} clusters, ${probes} probes, ${agreed} agreed`);
  },
  SOAK > 0 ? 3_600_000 : 300_000,
);
