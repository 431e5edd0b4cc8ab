/**
 * The kernel as oracle for the nftables tracer with real packets: random rule sets
 * (packet-ruleset.arbitrary.ts: dnat direct, through `numgen random mod 1` and a verdict map,
 * redirect, snat, masquerade, marks, sets, jumps, accept/drop/reject) are loaded with `nft -f`
 * into the node namespace of a netns scenario (src/backends/netns: pods on a bridge subnet, an
 * external client, endpoints elsewhere; namespaces deleted whatever happens), real TCP and UDP
 * connections are made, and each observation (delivered to which IP:port, the source the server
 * saw, rejected, dropped) must be one the tracer predicts for the same scenario.
 *
 * CI: a fixed seed, a few rule sets of a dozen probes each (under a minute). Soak:
 * NFT_PACKET_RUNS=<rule sets> (e.g. 40; 5-10 s each), which also prints the number of rule sets
 * and probes.
 */
import { expect } from "@jest/globals";
import fc from "fast-check";
import type { Probe, Scenario } from "../../../src/backends/backend.js";
import { netnsBackend } from "../../../src/backends/netns/backend.js";
import { liveNetns } from "../../../src/backends/netns.js";
import { verifyProbes } from "../../../src/backends/verify.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import { dumpTable } from "../../../src/netfilter/nftables/dump.js";
import { nftTest } from "../../proxiers/nftables/kernel-helpers.js";
import { ORACLE, packetRuleSetArb } from "./packet-ruleset.arbitrary.js";

const NODE: NodeEnvironment = {
  nodeName: "oracle-node",
  ipFamilies: ["IPv4"],
  nodeIPs: [ORACLE.node],
  interfaces: [
    { name: "lo", addresses: ["127.0.0.1/8"] },
    { name: "eth0", addresses: [`${ORACLE.node}/24`] },
    { name: "cbr0", addresses: ["10.244.1.1/24"] },
  ],
  kernel: {
    iptablesRandomFully: false,
    nfacct: [],
    conntrackTCPBeLiberal: false,
    ipvs: false,
    sctp: false,
  },
};

function scenarioOf(nftables: string): Scenario {
  return {
    node: NODE,
    rules: [],
    nftables,
    pods: [
      { name: "default/a", ip: ORACLE.podA, interface: "vethoracle0a" },
      { name: "default/b", ip: ORACLE.podB, interface: "vethoracle0b" },
    ],
    remoteEndpoints: [ORACLE.remote, ORACLE.lan],
    ports: [...ORACLE.ports],
    sysctls: {},
  };
}

/**
 * Connections through the node. The external client reaches the endpoints outside the node
 * (192.168.0.50 on its own LAN, 10.244.2.7 behind it) without the node, so those pairs are not
 * drawn.
 */
const probeArb: fc.Arbitrary<Probe> = fc
  .record({
    protocol: fc.constantFrom("tcp" as const, "udp" as const),
    from: fc.constantFrom("default/a", "node", "external"),
    to: fc.constantFrom(ORACLE.vip, ORACLE.podB, ORACLE.remote, ORACLE.lan, ORACLE.node),
    port: fc.constantFrom(...ORACLE.ports),
  })
  .filter((p) => p.from !== "external" || (p.to !== ORACLE.lan && p.to !== ORACLE.remote));

const SOAK = Number(process.env.NFT_PACKET_RUNS ?? "0");
const RUNS = SOAK > 0 ? SOAK : 3;

nftTest(
  `random nftables rule sets with real connections: the kernel agrees with the tracer (${RUNS} rule sets)`,
  async () => {
    expect.hasAssertions();
    let ruleSets = 0;
    let probes = 0;
    let agreed = 0;
    await fc.assert(
      fc.asyncProperty(
        packetRuleSetArb(),
        fc.uniqueArray(probeArb, {
          minLength: 8,
          maxLength: 12,
          selector: (p) => `${p.protocol} ${p.from} ${p.to} ${p.port}`,
        }),
        async (table, list) => {
          const text = dumpTable(table);
          const r = await verifyProbes(netnsBackend({ timeoutMs: 700 }), scenarioOf(text), list);
          ruleSets++;
          probes += r.summary.probes;
          agreed += r.summary.agreed;
          const bad = r.rows
            .filter((row) => row.agreement === "disagree")
            .map(
              (row) =>
                `${JSON.stringify(row.probe)}: predicted ${row.predicted}; observed ${row.observed}`,
            );
          expect({ text, bad }).toEqual({ text, bad: [] });
        },
      ),
      { seed: 20261202, numRuns: RUNS, endOnFailure: true },
    );
    expect(ruleSets).toBe(RUNS);
    expect(probes).toBeGreaterThan(0);
    // Most probes ran and were compared (the rest leave the node for an address no one hosts).
    expect(agreed).toBeGreaterThan(probes * 0.5);
    expect(liveNetns()).toEqual([]);
    if (SOAK > 0)
      console.log(`nft packet soak: ${ruleSets} rule sets, ${probes} probes, ${agreed} agreed`);
  },
  SOAK > 0 ? 3_600_000 : 300_000,
);
