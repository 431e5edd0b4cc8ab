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
  nftLoad,
  nftTest,
  withNftNetns,
  withSortedElements,
} from "../../proxiers/nftables/kernel-helpers.js";
import { tableArb } from "./table.arbitrary.js";
import { kernelRulesOnly } from "../../helpers/kernel.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const RUNS = Number(process.env.NFT_PROPERTY_RUNS ?? 20);

describe("random tables against the real nft", () => {
  nftTest("load, list, parse back", () => {
    expect.hasAssertions();
    withNftNetns((ns) => {
      fc.assert(
        fc.property(tableArb(), (table) => {
          const dump = dumpTable(table);
          ns.exec("nft", ["flush", "ruleset"]);
          const err = nftLoad(ns, dump);
          expect({ dump, err }).toEqual({ dump, err: undefined });
          const real = ns.exec("nft", ["list", "table", table.family, table.name]);
          const ours = listTable(inDumpOrder(table));
          expect(withSortedElements(ours)).toBe(withSortedElements(real));
          const parsedDump = parseNftables(dump, "dump.nft").tables[0];
          expect(parsedDump === undefined ? "" : dumpTable(parsedDump)).toBe(dump);
          const parsedList = parseNftables(real, "list.nft").tables[0];
          expect(withSortedElements(parsedList === undefined ? "" : listTable(parsedList))).toBe(
            withSortedElements(real),
          );
        }),
        { numRuns: RUNS, seed: 1601 },
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
      fc.assert(
        fc.property(tableArb(), mutation, (table, mutate) => {
          const text = `${dumpTable(table)}${mutate(table.family)}\n`;
          const nftError = ns.run("nft", ["-c", "-f", "-"], text).status !== 0;
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
        { numRuns: RUNS, seed: 1602 },
      );
    });
  });
});
