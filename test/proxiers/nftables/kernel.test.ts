/**
 * The real nft 1.0.6 as oracle: every acceptance case's dump (and a dual-stack, LB, affinity
 * and eTP=Local cluster) loads in a scratch namespace, and `nft list table` then equals our
 * `list` print (element order inside `elements = { }` aside: the kernel's hash order is not
 * stable); the first-sync transaction loads too and gives the same listing up to object order.
 */
import { describe, expect } from "@jest/globals";

import { renderNftables } from "../../../src/proxiers/nftables/index.js";
import { caseDirs, loadCase } from "./helpers.js";
import { nftLoad, nftTest, withNftNetns, withSortedElements } from "./kernel-helpers.js";
import { FEATURE_CASES } from "./feature-cases.js";
import { kernelRulesOnly } from "../../helpers/kernel.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const cases = [
  ...caseDirs().map((dir) => ({ name: dir.split("/nftables/")[1] ?? dir, ...loadCase(dir) })),
  ...FEATURE_CASES,
];

function blocks(listing: string): string[] {
  return withSortedElements(listing)
    .split("\n\n")
    .map((b) => b.replace(/^table [^\n]*\n(\tcomment [^\n]*\n)?/, "").replace(/\n}\n$/, ""))
    .sort();
}

describe("real nft", () => {
  nftTest("every case: the dump loads and nft list table equals our list", () => {
    expect.hasAssertions();
    expect(cases.length).toBeGreaterThan(5);
    for (const c of cases) {
      const r = renderNftables(c.cluster, c);
      withNftNetns((ns) => {
        expect({ name: c.name, error: nftLoad(ns, r.dump) }).toEqual({
          name: c.name,
          error: undefined,
        });
        for (const f of r.families) {
          const real = ns.exec("nft", ["list", "table", f.table.family, "kube-proxy"]);
          expect(`${c.name}\n${withSortedElements(real)}`).toBe(
            `${c.name}\n${withSortedElements(f.list)}`,
          );
        }
      });
    }
  });

  nftTest("every case: the transaction loads into an empty node and gives the same table", () => {
    expect.hasAssertions();
    for (const c of cases) {
      const r = renderNftables(c.cluster, c);
      withNftNetns((ns) => {
        expect({ name: c.name, error: nftLoad(ns, r.transaction) }).toEqual({
          name: c.name,
          error: undefined,
        });
        for (const f of r.families) {
          const real = ns.exec("nft", ["list", "table", f.table.family, "kube-proxy"]);
          expect([c.name, ...blocks(real)]).toEqual([c.name, ...blocks(f.list)]);
        }
      });
    }
  });
});
