/**
 * The real nft 1.0.6 as oracle for the statements beyond kube-proxy's own (statement.arbitrary.ts:
 * snat, redirect, log, limit, ct mark, reject with, masked marks, ct state/status combinations,
 * notrack, counter values; families ip, ip6, inet): our knftables text loads, `nft list table`
 * equals our canonical print, and both forms parse back to the same prints. Mutated rules
 * (NAT ports without a protocol match, ICMP kinds of the other family, bad limits) are refused
 * by our parser exactly when nft refuses them. `NFT_PROPERTY_RUNS` raises the run count.
 */
import { describe, expect } from "@jest/globals";
import fc from "fast-check";
import { dumpTable, inDumpOrder } from "../../../src/netfilter/nftables/dump.js";
import { listTable } from "../../../src/netfilter/nftables/list.js";
import { parseNftables } from "../../../src/netfilter/nftables/parse/file.js";
import { NftParseError } from "../../../src/netfilter/nftables/parse/tokens.js";
import { nftTest, withNftNetns } from "../../proxiers/nftables/kernel-helpers.js";
import { statementTableArb } from "./statement.arbitrary.js";
import { kernelRulesOnly } from "../../helpers/kernel.js";
import { answersInOrder } from "../../helpers/netns-batch.js";
import type { Table } from "../../../src/netfilter/nftables/model.js";

// Rules only: loads, checks and listings in its own namespaces, nothing timed.
kernelRulesOnly();

const RUNS = Number(process.env.NFT_PROPERTY_RUNS ?? 25);

import { loadAll, loadLive, refusedAll } from "../../helpers/nft-batch.js";

describe("statements beyond kube-proxy's against the real nft", () => {
  nftTest("load, list, parse back", () => {
    expect.hasAssertions();
    withNftNetns((ns) => {
      // nft's answers for the runs about to be made, from one batch (answersInOrder).
      const tables = statementTableArb();
      const params = { numRuns: RUNS, seed: 1611 };
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
          expect(listTable(inDumpOrder(table))).toBe(real);
          const parsedDump = parseNftables(dump, "dump.nft").tables[0];
          expect(parsedDump === undefined ? "" : dumpTable(parsedDump)).toBe(dump);
          const parsedList = parseNftables(real, "list.nft").tables[0];
          expect(parsedList === undefined ? "" : listTable(parsedList)).toBe(real);
        }),
        params,
      );
    });
  });

  nftTest("mutated rules: refused exactly when nft refuses them", () => {
    expect.hasAssertions();
    const family = fc.constantFrom("ip", "ip6", "inet");
    const addr = (f: string): string => (f === "ip6" ? "fd00::1" : "10.1.2.3");
    const snatFam = (f: string): string => (f === "inet" ? "snat ip to" : "snat to");
    const mutation = fc.constantFrom(
      (f: string) =>
        `add rule ${f} t post ${snatFam(f)} ${f === "ip6" ? "[fd00::1]" : "10.1.2.3"}:80`,
      (f: string) => `add rule ${f} t post meta l4proto udp ${snatFam(f)} 10.1.2.3:80-90 random`,
      (f: string) => `add rule ${f} t post snat to ${addr(f)}`,
      (f: string) => `add rule ${f} t post snat ip6 to fd00::1`,
      (f: string) => `add rule ${f} t pre redirect to :80`,
      (f: string) => `add rule ${f} t pre tcp dport 1 redirect to :80-90 persistent`,
      (f: string) => `add rule ${f} t pre th dport 1 redirect to :80`,
      (f: string) => `add rule ${f} t in reject with icmpx type admin-prohibited`,
      (f: string) => `add rule ${f} t in reject with icmp type host-prohibited`,
      (f: string) => `add rule ${f} t in reject with icmpv6 type addr-unreachable`,
      (f: string) => `add rule ${f} t in reject with icmp type no-such-code`,
      (f: string) => `add rule ${f} t in reject with tcp reset`,
      (f: string) => `add rule ${f} t in udp dport 80 reject with tcp reset`,
      (f: string) => `add rule ${f} t in meta l4proto udp reject with tcp reset`,
      (f: string) => `add rule ${f} t in meta l4proto tcp reject with tcp reset`,
      (f: string) => `add rule ${f} t in limit rate 0/second`,
      (f: string) => `add rule ${f} t in limit rate 5/fortnight`,
      (f: string) => `add rule ${f} t in limit rate 5/second burst 0 packets`,
      (f: string) => `add rule ${f} t in limit rate over 7 kbytes/minute burst 3 mbytes drop`,
      (f: string) => `add rule ${f} t in log level loud`,
      (f: string) => `add rule ${f} t in log prefix "a" level audit`,
      (f: string) => `add rule ${f} t in log level audit`,
      (f: string) => `add rule ${f} t in log group 2 flags all`,
      (f: string) => `add rule ${f} t in log level info group 2`,
      (f: string) => `add rule ${f} t in log group 2 prefix "x"`,
      (f: string) => `add rule ${f} t in log prefix "x" level crit flags tcp options,sequence`,
      (f: string) => `add rule ${f} t in ct mark set ct mark xor 0x5 accept`,
      (f: string) => `add rule ${f} t in ct state { new, untracked } ct mark != 0x3 drop`,
      (f: string) => `add rule ${f} t in counter packets 3 bytes`,
      (f: string) => `add rule ${f} t in meta mark and 0xff00 == 0x100 counter packets 1 bytes 2`,
    );
    withNftNetns((ns) => {
      // nft's answers for the runs about to be made, from one batch (answersInOrder).
      const textOf = (f: string, mutate: (f: string) => string): string =>
        [
          `add table ${f} t`,
          `add chain ${f} t in { type filter hook input priority 0 ; }`,
          `add chain ${f} t pre { type nat hook prerouting priority -100 ; }`,
          `add chain ${f} t post { type nat hook postrouting priority 100 ; }`,
          mutate(f),
          "",
        ].join("\n");
      const params = { numRuns: Math.max(RUNS * 3, 66), seed: 1612 };
      const texts = fc.sample(fc.tuple(family, mutation), params).map(([f, m]) => textOf(f, m));
      expect(texts).toHaveLength(params.numRuns);
      const refused = answersInOrder(
        texts,
        refusedAll(ns, texts),
        (text) => ns.run("nft", ["-c", "-f", "-"], text).status !== 0,
      );
      fc.assert(
        fc.property(family, mutation, (f, mutate) => {
          const text = textOf(f, mutate);
          const nftError = refused(text);
          let ourError: string | undefined;
          try {
            parseNftables(text, "in.nft");
          } catch (e) {
            if (!(e instanceof NftParseError)) throw e;
            ourError = e.message;
          }
          expect({ text, rejected: ourError !== undefined }).toEqual({ text, rejected: nftError });
          if (ourError !== undefined) expect(ourError).toMatch(/^in\.nft:5:\d+: /);
        }),
        params,
      );
    });
  });
});
