/**
 * nftables base chains among the iptables tables at a hook (nft-stage.ts): by priority, the
 * iptables table first at equal priority, each chain in the runHook call whose part of the
 * hook holds its priority, nat chains left out where no NAT runs (the loop through lo).
 */
import { describe, expect, test } from "@jest/globals";
import type { Table } from "../../../src/netfilter/nftables/model.js";
import { stagesFor } from "../../../src/netfilter/trace/nft-stage.js";

const table: Table = {
  family: "ip",
  name: "t",
  sets: [],
  chains: [
    { name: "pre-raw", base: { type: "filter", hook: "prerouting", priority: -300 }, rules: [] },
    { name: "pre-dnat", base: { type: "filter", hook: "prerouting", priority: -110 }, rules: [] },
    { name: "nat-pre", base: { type: "nat", hook: "prerouting", priority: -100 }, rules: [] },
    { name: "out-pre", base: { type: "filter", hook: "output", priority: -110 }, rules: [] },
    { name: "nat-out", base: { type: "nat", hook: "output", priority: -100 }, rules: [] },
    { name: "out-filter", base: { type: "filter", hook: "output", priority: 0 }, rules: [] },
    { name: "post", base: { type: "nat", hook: "postrouting", priority: 100 }, rules: [] },
  ],
};

const names = (s: ReturnType<typeof stagesFor>): string[] =>
  s.map((x) => (x.kind === "nft" ? `nft:${x.chain}` : x.table));

describe("stagesFor", () => {
  test("PREROUTING: by priority, iptables first at a tie", () => {
    expect(names(stagesFor([table], "PREROUTING", ["raw", "mangle", "nat"], "dst"))).toEqual([
      "raw",
      "nft:pre-raw",
      "mangle",
      "nft:pre-dnat",
      "nat",
      "nft:nat-pre",
    ]);
  });

  test("OUTPUT in two calls: each chain in the call covering its priority", () => {
    expect(names(stagesFor([table], "OUTPUT", ["raw", "mangle", "nat"], "dst"))).toEqual([
      "raw",
      "mangle",
      "nft:out-pre",
      "nat",
      "nft:nat-out",
    ]);
    expect(names(stagesFor([table], "OUTPUT", ["filter", "security"], "dst"))).toEqual([
      "filter",
      "nft:out-filter",
      "security",
    ]);
  });

  test("the loop through lo runs no nat chain", () => {
    expect(names(stagesFor([table], "PREROUTING", ["raw", "mangle"], "none"))).toEqual([
      "raw",
      "nft:pre-raw",
      "mangle",
      "nft:pre-dnat",
    ]);
  });

  test("POSTROUTING: srcnat after the nat table", () => {
    expect(names(stagesFor([table], "POSTROUTING", ["mangle", "nat"], "src"))).toEqual([
      "mangle",
      "nat",
      "nft:post",
    ]);
  });

  test("no nftables tables: the iptables tables unchanged", () => {
    expect(names(stagesFor(undefined, "INPUT", ["mangle", "filter"], "src"))).toEqual([
      "mangle",
      "filter",
    ]);
  });
});
