/**
 * The real nft 1.0.6 as oracle over random tables (table.arbitrary.ts): our knftables text
 * loads, `nft list table` equals our canonical print (element order inside `elements = { }`
 * aside), and our parser reads both forms back to the same prints. Mutated inputs (undefined
 * chains and sets, unknown statements, priorities invalid at the hook) are rejected by our
 * parser exactly when nft rejects them.
 */
import { describe, expect } from "@jest/globals";
import fc from "fast-check";
import { dumpTable, inDumpOrder } from "../../../src/netfilter/nftables/dump.js";
import { listTable } from "../../../src/netfilter/nftables/list.js";
import { parseNftables } from "../../../src/netfilter/nftables/parse/file.js";
import { NftParseError } from "../../../src/netfilter/nftables/parse/tokens.js";
import {
  nftTest,
  withNftNetns,
  withSortedElements,
} from "../../proxiers/nftables/kernel-helpers.js";
import { tableArb } from "./table.arbitrary.js";
import { kernelRulesOnly } from "../../helpers/kernel.js";
import { answersInOrder } from "../../helpers/netns-batch.js";
import type { Table } from "../../../src/netfilter/nftables/model.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const RUNS = Number(process.env.NFT_PROPERTY_RUNS ?? 20);

import { loadAll, loadLive, refusedAll } from "../../helpers/nft-batch.js";

describe("random tables against the real nft", () => {
  nftTest("load, list, parse back", () => {
    expect.hasAssertions();
    withNftNetns((ns) => {
      // nft's answers for the runs about to be made, from one batch (answersInOrder).
      const tables = tableArb();
      const params = { numRuns: RUNS, seed: 1601 };
      const sampled = fc.sample(fc.tuple(tables), params).map(([t]) => t);
      expect(sampled).toHaveLength(params.numRuns);
      let current: Table | undefined; // the run's table, for a load the batch did not answer
      const loaded = answersInOrder(
        sampled.map((t) => dumpTable(t)),
        loadAll(ns, sampled),
        (dump) => loadLive(ns, current!, dump),
      );
      fc.assert(
        fc.property(tables, (table) => {
          const dump = dumpTable(table);
          current = table;
          const { err, real = "" } = loaded(dump);
          expect({ dump, err }).toEqual({ dump, err: undefined });
          const ours = listTable(inDumpOrder(table));
          expect(withSortedElements(ours)).toBe(withSortedElements(real));
          const parsedDump = parseNftables(dump, "dump.nft").tables[0];
          expect(parsedDump === undefined ? "" : dumpTable(parsedDump)).toBe(dump);
          const parsedList = parseNftables(real, "list.nft").tables[0];
          expect(withSortedElements(parsedList === undefined ? "" : listTable(parsedList))).toBe(
            withSortedElements(real),
          );
        }),
        params,
      );
    });
  });

  nftTest("mutated input: rejected exactly when nft rejects it", () => {
    expect.hasAssertions();
    const mutation = fc.constantFrom(
      (f: string) => `add rule ${f} t base0 jump no-such-chain`,
      (f: string) => `add rule ${f} t base0 ${f} daddr @no-such-set drop`,
      (f: string) => `add rule ${f} t base0 frobnicate`,
      (f: string) => `add rule ${f} t base0 meta l4proto tcp snat`,
      (f: string) => `add chain ${f} t bad { type filter hook input priority dstnat ; }`,
      (f: string) => `add chain ${f} t bad { type nat hook output priority dstnat ; }`,
      (f: string) => `add chain ${f} t good { type filter hook prerouting priority dstnat - 10 ; }`,
      (f: string) => `add element ${f} t no-such-set { 80 }`,
      (f: string) => `add rule ${f} t base0 counter`,
      (f: string) => `add rule ${f} t no-such-chain counter`,
    );
    withNftNetns((ns) => {
      // nft's answers for the runs about to be made, from one batch (answersInOrder).
      const tables = tableArb();
      const textOf = (table: Table, mutate: (f: string) => string): string =>
        `${dumpTable(table)}${mutate(table.family)}\n`;
      const params = { numRuns: RUNS, seed: 1602 };
      const texts = fc.sample(fc.tuple(tables, mutation), params).map(([t, m]) => textOf(t, m));
      expect(texts).toHaveLength(params.numRuns);
      const refused = answersInOrder(
        texts,
        refusedAll(ns, texts),
        (text) => ns.run("nft", ["-c", "-f", "-"], text).status !== 0,
      );
      fc.assert(
        fc.property(tables, mutation, (table, mutate) => {
          const text = textOf(table, mutate);
          const nftError = refused(text);
          let ourError: string | undefined;
          try {
            parseNftables(text, "in.nft");
          } catch (e) {
            if (!(e instanceof NftParseError)) throw e;
            ourError = e.message;
          }
          expect({ text, rejected: ourError !== undefined }).toEqual({ text, rejected: nftError });
          if (ourError !== undefined) expect(ourError).toMatch(/^in\.nft:\d+:\d+: /);
        }),
        params,
      );
    });
  });
});
