/**
 * Partial syncs compose: over random sequences of cluster states (and random times between
 * syncs), the table after every sync is the table a full render of that state gives, apart from
 * the stale chains still waiting for deletion (flushed, hence empty). And a sync without a
 * change to any service writes nothing but the stale-chain work.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { sortNftablesTransaction } from "../../../src/netfilter/nftables/upstream-sort.js";
import { renderNftables } from "../../../src/proxiers/nftables/index.js";
import { syncSequence } from "../../../src/proxiers/nftables/sync.js";
import { POOL, POOL_CONFIG, POOL_NODE, poolCluster } from "./sync-pool.js";

const stateArb = fc.tuple(...POOL.map((v) => fc.integer({ min: -1, max: v.length - 1 })));
const stepArb = fc.record({
  state: stateArb,
  elapsed: fc.constantFrom(0, 0.5, 1, 2, 30, 4000),
});

const opts = { node: POOL_NODE, proxyConfig: POOL_CONFIG };
// Dual stack: two proxiers, `ip` and `ip6` tables, each synced on its own.
const dualStack = { ...opts, node: { ...POOL_NODE, ipFamilies: ["IPv4", "IPv6"] as const } };

describe("syncSequence composes", () => {
  it.prop([fc.array(stepArb, { minLength: 2, maxLength: 5 }), fc.boolean()], {
    numRuns: 15,
    seed: 1216,
  })("after every sync the table equals the full render, stale chains aside", (steps, dual) => {
    expect.hasAssertions();
    const o = dual ? dualStack : opts;
    const syncs = syncSequence(
      steps.map((s) => ({ cluster: poolCluster(s.state), elapsedSeconds: s.elapsed })),
      o,
    );
    expect(syncs).toHaveLength(steps.length);
    syncs.forEach((sync, i) => {
      const step = steps[i];
      if (step === undefined) throw new Error("no step");
      const full = renderNftables(poolCluster(step.state), o);
      expect(sync.families.map((f) => f.table.family)).toEqual(dual ? ["ip", "ip6"] : ["ip"]);
      sync.families.forEach((f, j) => {
        const stale = new Set(f.staleChains.keys());
        const ours = sortNftablesTransaction(f.dump)
          .split("\n")
          .filter((l) => !(l.startsWith("add chain ") && stale.has(l.split(" ")[4] ?? "")));
        const want = sortNftablesTransaction(full.families[j]?.dump ?? "");
        expect(`sync ${i + 1}\n${ours.join("\n")}`).toBe(`sync ${i + 1}\n${want}`);
      });
    });
  });

  it.prop([stateArb], { numRuns: 15, seed: 77 })(
    "a sync with no change writes only stale-chain flushes",
    (state) => {
      const c = poolCluster(state);
      const [first, second, third] = syncSequence([c, c, c], { ...opts, intervalSeconds: 0 });
      for (const s of [first, second, third]) expect(s?.families).toHaveLength(1);
      expect(third?.families[0]?.operations).toEqual([]);
      expect(second?.families[0]?.operations).toEqual([]);
    },
  );
});
