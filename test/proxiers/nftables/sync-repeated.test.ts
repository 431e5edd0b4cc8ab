/**
 * TestSyncProxyRulesRepeated (pkg/proxy/nftables/proxier_test.go) as an acceptance test of
 * `syncSequence`: after every sync the table (Dump of the applied transactions) equals the
 * upstream expected string after the upstream sort, each transaction has the number of
 * operations upstream asserts, and the stale chains are the ones upstream expects.
 */
import { describe, expect, test } from "@jest/globals";
import { sortNftablesTransaction } from "../../../src/netfilter/nftables/upstream-sort.js";
import { syncSequence, type NftFamilySync } from "../../../src/proxiers/nftables/sync.js";
import {
  expectedDump,
  REPEATED_INTERVAL,
  repeatedOptions,
  repeatedStates,
} from "./sync-repeated/harness.js";

const syncs = syncSequence(repeatedStates(), {
  ...repeatedOptions(),
  intervalSeconds: REPEATED_INTERVAL,
});

function only(step: number): NftFamilySync {
  const f = syncs[step - 1]?.families;
  if (f?.length !== 1 || f[0] === undefined) throw new Error(`sync ${step}: expected one family`);
  return f[0];
}

/** Which upstream string each sync's Dump is compared with (12 and 13 reuse 10's). */
const DUMPS: readonly (readonly [number, string])[] = [
  [1, "01"],
  [2, "02"],
  [3, "03"],
  [4, "04"],
  [5, "05"],
  [6, "06"],
  [7, "07"],
  [8, "08"],
  [9, "09"],
  [10, "10"],
  [12, "10"],
  [13, "10"],
];

/** `nft.LastTransaction.NumOperations()` as asserted upstream. */
const OPERATIONS: readonly (readonly [number, number])[] = [
  [2, 10],
  [3, 4],
  [4, 0],
  [5, 2],
  [6, 10],
  [7, 9],
  [8, 12],
  [9, 5],
  [10, 14],
  [13, 0],
];

describe("TestSyncProxyRulesRepeated", () => {
  test("thirteen syncs, the first full and the others partial", () => {
    expect(syncs.map((s) => only(s.index).full)).toEqual([true, ...Array<boolean>(12).fill(false)]);
  });

  test.each(DUMPS)(
    "sync %i: the table equals upstream expected %s after the upstream sort",
    (step, file) => {
      expect(sortNftablesTransaction(only(step).dump)).toBe(
        sortNftablesTransaction(expectedDump(file)),
      );
    },
  );

  test.each(OPERATIONS)("sync %i: %i operations", (step, n) => {
    expect(only(step).operations).toHaveLength(n);
  });

  test("stale chains: flushed when the service is emptied, forgotten when it is restored at once", () => {
    expect([...only(9).staleChains.keys()].sort()).toEqual([
      "endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80",
      "endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80",
      "service-4AT6LBPK-ns3/svc3/tcp/p80",
    ]);
    expect(only(10).staleChains.size).toBe(0);
  });

  test("aged stale chains are deleted in a transaction of their own, before the sync's", () => {
    expect(only(4).staleChainDeletionText).toBe(
      [
        "delete chain ip kube-proxy endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080",
        "delete chain ip kube-proxy service-MHHHYRWA-ns2/svc2/tcp/p8080",
        "",
      ].join("\n"),
    );
    expect(only(8).staleChainDeletion).toEqual([
      { kind: "delete-chain", name: "endpoint-2OCDJSZQ-ns3/svc3/tcp/p80__10.0.3.1/80" },
    ]);
    expect(only(12).staleChainDeletion).toHaveLength(3);
    expect(only(3).staleChainDeletion).toHaveLength(0);
  });
});
