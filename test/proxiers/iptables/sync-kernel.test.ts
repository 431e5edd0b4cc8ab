/**
 * The real kernel as oracle for iptables sync sequences: in a scratch namespace, each sync is
 * applied as kube-proxy applies it (the commands first: canary, built-in jumps; then
 * `iptables-restore --noflush --counters` of the partial input). Every input must load, and
 * after every sync `iptables-save` of filter and nat (canary aside) must equal what a clean host
 * holds after one full sync of the same state (`renderIptables(...).save`): partial restores,
 * with their `-X` of stale chains, compose to kube-proxy's state.
 */
import { describe, expect } from "@jest/globals";
import { withNetns, type Netns } from "../../../src/backends/netns.js";
import type { Cluster } from "../../../src/model/cluster.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import {
  CANARY_CHAIN,
  syncIptablesSequence,
  type IptablesCommand,
} from "../../../src/proxiers/iptables/sync.js";
import { kernelRulesOnly, kernelTest } from "../../helpers/kernel.js";
import { poolCluster, type PoolState } from "../nftables/sync-pool.js";
import { argv, FAKE_CONFIG, FAKE_NODE, withoutSaveComments } from "./helpers.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

// No nfacct objects exist in a scratch namespace; everything else is the upstream fake node.
const NODE: NodeEnvironment = {
  ...FAKE_NODE,
  kernel: { ...FAKE_NODE.kernel, nfacct: [], iptablesRandomFully: true },
};
const OPTS = { node: NODE, proxyConfig: FAKE_CONFIG };

function run(ns: Netns, c: IptablesCommand): void {
  if (c.kind === "ensure-chain") ns.run("iptables", ["-w", "-t", c.table, "-N", c.chain]);
  else ns.exec("iptables", ["-w", "-t", c.jump.table, "-I", c.jump.chain, ...argv(c.jump.rule)]);
}

function filterAndNat(ns: Netns): string {
  const save = ns.exec("iptables-save", ["-t", "filter"]) + ns.exec("iptables-save", ["-t", "nat"]);
  return withoutSaveComments(save)
    .split("\n")
    .filter((l) => l !== `:${CANARY_CHAIN} - [0:0]`)
    .join("\n");
}

const SEQUENCE: readonly PoolState[] = [
  [0, 0, 0, 0, 0, 0],
  [1, 1, 1, 1, 1, 1],
  [2, -1, 2, 2, 0, -1],
  [2, -1, 2, 2, 0, -1],
  [-1, -1, -1, -1, -1, -1],
  [0, 0, 0, 0, 0, 0],
];

describe("kernel: iptables sync sequences", () => {
  kernelTest(
    "kns-sync: every partial restore loads and leaves the full sync's state",
    ["root", "ip", "iptables"],
    async () => {
      expect.hasAssertions();
      const clusters: Cluster[] = SEQUENCE.map(poolCluster);
      const syncs = syncIptablesSequence(clusters, OPTS);
      expect(syncs.length).toBe(SEQUENCE.length);
      await withNetns(
        1,
        ([ns]) => {
          if (ns === undefined) throw new Error("no namespace");
          syncs.forEach((s, i) => {
            const f = s.families[0];
            const cluster = clusters[i];
            if (f === undefined || cluster === undefined) throw new Error("no family");
            for (const c of f.commands) run(ns, c);
            ns.exec("iptables-restore", ["-w", "--noflush", "--counters"], f.restore);
            const want = renderIptables(cluster, OPTS).save;
            expect(`sync ${s.index}\n${filterAndNat(ns)}`).toBe(`sync ${s.index}\n${want}`);
          });
          expect(ns.exec("iptables", ["-w", "-t", "mangle", "-S", CANARY_CHAIN])).toContain(
            CANARY_CHAIN,
          );
        },
        "kns-sync",
      );
    },
  );
});
