/**
 * shared/acceptance/nftables golden: TestSyncProxyRulesRepeated's first sync, compared after
 * the upstream sort (expected.sorted.nft), and the Dump layout (expected.dump.nft).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "@jest/globals";
import { sortNftablesTransaction } from "../../../src/netfilter/nftables/upstream-sort.js";
import { renderNftables } from "../../../src/proxiers/nftables/index.js";
import { loadCase, NFT_ACCEPTANCE } from "./helpers.js";

const dir = join(NFT_ACCEPTANCE, "sync-repeated-initial");

describe("sync-repeated-initial", () => {
  const c = loadCase(dir);
  const r = renderNftables(c.cluster, c);

  test("dump equals the upstream golden after the upstream sort", () => {
    expect(sortNftablesTransaction(r.dump)).toBe(
      readFileSync(join(dir, "expected.sorted.nft"), "utf8").replace(/\n$/, ""),
    );
  });

  test("expected.nft sorts to expected.sorted.nft (our sort is upstream's)", () => {
    expect(sortNftablesTransaction(readFileSync(join(dir, "expected.nft"), "utf8"))).toBe(
      readFileSync(join(dir, "expected.sorted.nft"), "utf8").replace(/\n$/, ""),
    );
  });

  test("dump layout equals expected.dump.nft (elements sorted there)", () => {
    expect(r.dump).toBe(readFileSync(join(dir, "expected.dump.nft"), "utf8"));
  });

  test("list equals real nft's listing (element order aside)", () => {
    expect(r.list).toBe(readFileSync(join(dir, "real-nft-list.txt"), "utf8"));
  });
});
