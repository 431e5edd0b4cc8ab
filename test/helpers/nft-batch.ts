/**
 * The nftables kernel properties' calls (test/netfilter/nftables/kernel*.property.test.ts): a
 * table loaded into a namespace and listed back, and `nft -c` checks, for many inputs from one
 * shell (runBatch), or one by one for a run the batch did not answer.
 */
import type { Netns } from "../../src/backends/netns.js";
import { dumpTable } from "../../src/netfilter/nftables/dump.js";
import type { Table } from "../../src/netfilter/nftables/model.js";
import { nftLoad } from "../proxiers/nftables/kernel-helpers.js";
import { okOutput, runBatch, type BatchStep } from "./netns-batch.js";

export interface Loaded {
  /** nft's stderr when the load failed. */
  readonly err?: string;
  /** `nft list table FAMILY NAME` after it loaded. */
  readonly real?: string;
}

/** `nft flush ruleset`, `nft -f -` of the dump, `nft list table` of it: the test's kernel calls. */
export function loadSteps(table: Table, dump: string): BatchStep[] {
  return [
    { cmd: "nft", args: ["flush", "ruleset"] },
    { cmd: "nft", args: ["-f", "-"], input: dump },
    { cmd: "nft", args: ["list", "table", table.family, table.name], ifOk: true },
  ];
}

/** Each table loaded and listed as `loadSteps` says, one after another, from one shell. */
export function loadAll(ns: Netns, tables: readonly Table[]): Loaded[] {
  const items = tables.map((t) => loadSteps(t, dumpTable(t)));
  return runBatch(ns, items).map(([flush, load, list], k) => {
    okOutput(items[k]![0]!, flush);
    if (load === undefined || load.status !== 0) return { err: load?.stderr ?? "not run" };
    return { real: okOutput(items[k]![2]!, list) };
  });
}

/** The same calls one by one (a run the batch did not answer). */
export function loadLive(ns: Netns, table: Table, dump: string): Loaded {
  ns.exec("nft", ["flush", "ruleset"]);
  const err = nftLoad(ns, dump);
  if (err !== undefined) return { err };
  return { real: ns.exec("nft", ["list", "table", table.family, table.name]) };
}

/** Whether `nft -c -f -` refuses each text, from one shell. */
export function refusedAll(ns: Netns, texts: readonly string[]): boolean[] {
  return runBatch(
    ns,
    texts.map((text) => [{ cmd: "nft", args: ["-c", "-f", "-"], input: text }]),
  ).map(([r]) => r === undefined || r.status !== 0);
}
