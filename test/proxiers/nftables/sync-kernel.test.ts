/**
 * The real nft 1.0.6 as oracle for sync sequences: in a scratch namespace, each sync's
 * transactions (the stale-chain deletion first, then the sync's own) are loaded in order with
 * `nft -f`; after every sync `nft list table` equals our listing of the table the sequence
 * computed (object and element order aside). One more sync of the last state, 2 s later, deletes
 * the stale chains still pending; then the table equals the full render of the last state. So
 * the partial transactions are valid nft input and compose to the state kube-proxy means.
 */
import { describe, expect } from "@jest/globals";
import type { Cluster } from "../../../src/model/cluster.js";
import { listTable } from "../../../src/netfilter/nftables/list.js";
import { renderNftables } from "../../../src/proxiers/nftables/index.js";
import {
  syncSequence,
  type SyncSequenceOptions,
  type SyncState,
} from "../../../src/proxiers/nftables/sync.js";
import { nftLoad, nftTest, withNftNetns, withSortedElements } from "./kernel-helpers.js";
import { POOL_CONFIG, POOL_NODE, poolCluster, type PoolState } from "./sync-pool.js";
import { REPEATED_INTERVAL, repeatedOptions, repeatedStates } from "./sync-repeated/harness.js";
import { kernelRulesOnly } from "../../helpers/kernel.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

/** A listing as a sorted list of object blocks (the kernel keeps creation order, we compare sets). */
function blocks(listing: string): string[] {
  return withSortedElements(listing)
    .split("\n\n")
    .map((b) => b.replace(/^table [^\n]*\n(\tcomment [^\n]*\n)?/, "").replace(/\n}\n$/, ""))
    .sort();
}

function checkSequence(
  name: string,
  states: readonly SyncState[],
  opts: SyncSequenceOptions,
  last: Cluster,
): void {
  const settle: SyncState = { name: "settle", cluster: last, elapsedSeconds: 2 };
  const syncs = syncSequence([...states, settle], opts);
  expect(syncs.length).toBeGreaterThan(1);
  withNftNetns((ns) => {
    for (const s of syncs)
      for (const f of s.families) {
        const where = `${name}: sync ${s.index} (${s.name}), ${f.table.family}`;
        for (const text of [f.staleChainDeletionText, f.transaction])
          if (text !== "")
            expect({ where, error: nftLoad(ns, text) }).toEqual({ where, error: undefined });
        const real = ns.exec("nft", ["list", "table", f.table.family, f.table.name]);
        expect([where, ...blocks(real)]).toEqual([where, ...blocks(listTable(f.state))]);
      }
    const full = renderNftables(last, opts);
    for (const f of full.families) {
      const real = ns.exec("nft", ["list", "table", f.table.family, "kube-proxy"]);
      expect([name, ...blocks(real)]).toEqual([name, ...blocks(f.list)]);
    }
  });
}

const POOL_SEQUENCE: readonly PoolState[] = [
  [0, 0, 0, 0, 0, 0],
  [1, 1, 1, 1, 1, 1],
  [2, -1, 2, 2, 0, -1],
  [-1, -1, -1, -1, -1, -1],
  [0, 0, 0, 0, 0, 0],
];

describe("real nft: sync sequences", () => {
  nftTest("TestSyncProxyRulesRepeated's transactions load and compose", () => {
    expect.hasAssertions();
    const states = repeatedStates();
    const last = states[states.length - 1];
    if (last === undefined) throw new Error("no states");
    checkSequence(
      "sync-repeated",
      states,
      { ...repeatedOptions(), intervalSeconds: REPEATED_INTERVAL },
      last.cluster,
    );
  });

  nftTest("service pool: changes of every kind, 30s and 0.5s apart", () => {
    expect.hasAssertions();
    const last = poolCluster(POOL_SEQUENCE[POOL_SEQUENCE.length - 1] ?? []);
    for (const interval of [30, 0.5]) {
      const states = POOL_SEQUENCE.map((p) => ({ cluster: poolCluster(p) }));
      checkSequence(
        `pool, ${interval}s`,
        states,
        { node: POOL_NODE, proxyConfig: POOL_CONFIG, intervalSeconds: interval },
        last,
      );
    }
  });
});
