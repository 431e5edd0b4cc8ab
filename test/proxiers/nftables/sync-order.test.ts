/**
 * The order of a transaction's operations, as pkg/proxy/nftables/proxier.go adds them (commit
 * 531be812): the constraints below are read from `setupNFTables` and `syncProxyRules`, not from
 * our output. Checked on the service pool (LoadBalancer with source ranges, ClientIP affinity,
 * eTP=Local, NodePorts) and on a change that removes elements and chains.
 */
import { describe, expect, test } from "@jest/globals";
import { syncSequence } from "../../../src/proxiers/nftables/sync.js";
import type { NftOperation } from "../../../src/proxiers/nftables/sync-operations.js";
import { POOL_CONFIG, POOL_NODE, poolCluster } from "./sync-pool.js";

const [first, second] = syncSequence(
  [poolCluster([0, 0, 0, 0, 0, 0]), poolCluster([1, 1, 1, 1, 1, 1])],
  { node: POOL_NODE, proxyConfig: POOL_CONFIG },
);
const ops = (i: 0 | 1): readonly NftOperation[] =>
  [first, second][i]?.families[0]?.operations ?? [];

const index = (list: readonly NftOperation[], pred: (o: NftOperation) => boolean): number =>
  list.findIndex(pred);
const lastIndex = (list: readonly NftOperation[], pred: (o: NftOperation) => boolean): number =>
  list.length - 1 - [...list].reverse().findIndex(pred);

describe("transaction order", () => {
  test("setup: table, base chains re-created once, each jump after its target chain", () => {
    const o = ops(0);
    expect(o[0]).toEqual({ kind: "add-table", comment: "rules for kube-proxy" });
    // "add+delete once" of the 8 base chains, name only, before any chain is created for real.
    expect(o.slice(1, 17).map((x) => x.kind)).toEqual(
      Array.from({ length: 8 }, () => ["add-chain", "delete-chain"]).flat(),
    );
    expect(o.slice(1, 17).every((x) => x.kind !== "add-chain" || x.base === undefined)).toBe(true);
    const jumps = o.filter(
      (x): x is Extract<NftOperation, { kind: "add-rule" }> =>
        x.kind === "add-rule" &&
        x.rule.statements.some((s) => s.kind === "verdict" && s.verdict.kind === "jump"),
    );
    expect(jumps.length).toBeGreaterThan(10);
    for (const j of jumps) {
      const last = j.rule.statements[j.rule.statements.length - 1];
      if (last?.kind !== "verdict" || last.verdict.kind !== "jump") continue;
      const target = last.verdict.chain;
      const created = index(o, (x) => x.kind === "add-chain" && x.name === target);
      expect({ target, before: created < o.indexOf(j) }).toEqual({ target, before: true });
    }
  });

  test("per service: chains ensured, then elements, then rules; affinity sets before policy rules", () => {
    const o = ops(0);
    const sticky = (x: NftOperation): boolean =>
      "chain" in x ? x.chain.includes("ns6/sticky") : "name" in x && x.name.includes("ns6/sticky");
    const firstElement = index(
      o,
      (x) => x.kind === "add-element" && x.element.key[0] === "172.30.0.46",
    );
    const lastChain = lastIndex(o, (x) => x.kind === "add-chain" && sticky(x));
    const firstRule = index(o, (x) => x.kind === "add-rule" && sticky(x));
    const affinitySet = index(o, (x) => x.kind === "add-set" && x.set.name.startsWith("affinity-"));
    const inServiceChain = (x: NftOperation): x is Extract<NftOperation, { kind: "add-rule" }> =>
      x.kind === "add-rule" && x.chain.startsWith("service-") && x.chain.includes("ns6/sticky");
    // kube-proxy adds the internal chain's masquerade rule first, its policy rules (affinity
    // lookups, numgen) only after the affinity sets.
    const masquerade = index(o, inServiceChain);
    const policyRule = index(
      o,
      (x) =>
        inServiceChain(x) &&
        !x.rule.statements.some((st) => st.kind === "verdict" && st.verdict.kind === "jump"),
    );
    expect(masquerade).toBeLessThan(affinitySet);
    expect(lastChain).toBeLessThan(firstElement);
    expect(firstElement).toBeLessThan(firstRule);
    expect(affinitySet).toBeLessThan(policyRule);
  });

  test("firewall chain ensured after the ClusterIP elements and before the LoadBalancer ones", () => {
    const o = ops(0);
    const fw = index(
      o,
      (x) => x.kind === "add-chain" && x.name.startsWith("firewall-") && x.name.includes("/"),
    );
    const clusterIP = index(
      o,
      (x) => x.kind === "add-element" && x.element.key[0] === "172.30.0.45",
    );
    const lb = index(o, (x) => x.kind === "add-element" && x.element.key[0] === "5.6.7.8");
    expect(clusterIP).toBeGreaterThan(0);
    expect(fw).toBeGreaterThan(clusterIP);
    expect(lb).toBeGreaterThan(fw);
  });

  test("a partial sync: stale flushes after every rule, element deletions last", () => {
    const o = ops(1);
    const lastRule = lastIndex(o, (x) => x.kind === "add-rule");
    const firstFlushOfStale = index(
      o,
      (x) =>
        x.kind === "flush-chain" && !o.some((y) => y.kind === "add-chain" && y.name === x.name),
    );
    const firstDelete = index(o, (x) => x.kind === "delete-element");
    const lastAdd = lastIndex(o, (x) => x.kind === "add-element");
    expect(firstFlushOfStale).toBeGreaterThan(lastRule);
    expect(firstDelete).toBeGreaterThan(firstFlushOfStale);
    // A changed value is delete+add in place; pure deletions of unused keys come last.
    const pureDeletes = o.filter(
      (x, i) => x.kind === "delete-element" && o[i + 1]?.kind !== "add-element",
    );
    expect(pureDeletes.length).toBeGreaterThan(0);
    expect(o.lastIndexOf(pureDeletes[0] as NftOperation)).toBeGreaterThan(lastAdd);
  });
});
