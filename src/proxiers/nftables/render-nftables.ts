/**
 * `renderNftables(cluster, { proxyConfig, node })`: kube-proxy's nftables table per IP family
 * of the node (`ip kube-proxy`, `ip6 kube-proxy`), as typed data and in three texts: the
 * knftables fake's Dump, the first full sync's transaction (as kube-proxy orders it, sync.ts),
 * and `nft list table` once loaded.
 */
import type { Cluster } from "../../model/cluster.js";
import type { IPFamily } from "../../net/index.js";
import { TableBuilder } from "../../netfilter/nftables/builder.js";
import { dumpTable, inDumpOrder } from "../../netfilter/nftables/dump.js";
import { DumpWriter } from "../../netfilter/nftables/dump-writer.js";
import type { TableSink } from "../../netfilter/nftables/table-sink.js";
import { listTable } from "../../netfilter/nftables/list.js";
import type { Table } from "../../netfilter/nftables/model.js";
import { familyPlanSource } from "../common/plan.js";
import { addServicePort } from "./service-port.js";
import { nftSettings, type NftablesOptions, type NftSettings } from "./settings.js";
import { addSetup, TABLE_COMMENT, TABLE_NAME } from "./setup.js";
import { firstSyncTransaction } from "./sync.js";

export interface NftablesFamilyResult {
  readonly family: IPFamily;
  /** Objects in Dump order (the creation order `nft -f` sees when loading the dump). */
  readonly table: Table;
  readonly dump: string;
  readonly transaction: string;
  readonly list: string;
}

export interface NftablesResult {
  /** Every family's text, concatenated in the node's family order. */
  readonly dump: string;
  readonly transaction: string;
  readonly list: string;
  /** The typed tables. */
  readonly ruleSet: { readonly tables: readonly Table[] };
  readonly families: readonly NftablesFamilyResult[];
}

/**
 * Writes the table one per-family proxier writes on a full sync into `sink`: the fixed objects,
 * then each service port as it is planned (no plan of the whole cluster is kept).
 */
function writeTable(sink: TableSink, cluster: Cluster, settings: NftSettings): void {
  addSetup(sink, settings);
  familyPlanSource(cluster, settings.common).forEach((plan) =>
    addServicePort(sink, plan, settings),
  );
}

/** The table one per-family proxier writes on a full sync. */
export function nftablesTable(cluster: Cluster, family: IPFamily, opts: NftablesOptions): Table {
  const settings = nftSettings(cluster, family, opts);
  const b = new TableBuilder(settings.words.word, TABLE_NAME, TABLE_COMMENT);
  writeTable(b, cluster, settings);
  return inDumpOrder(b.build());
}

/**
 * `renderNftables(cluster, opts).dump` written as bytes into `write` (each piece is written over
 * once the call returns), one family after the other, without making the typed tables or the
 * text: what `render nftables` prints. Same bytes (test/proxiers/nftables/streamed-dump.test.ts).
 */
export function writeNftablesDump(
  cluster: Cluster,
  opts: NftablesOptions,
  write: (bytes: Uint8Array) => void,
): void {
  // Every family written before the first byte is printed: an input the generator refuses
  // prints nothing, as with the whole text.
  const writers = opts.node.ipFamilies.map((family) => {
    const settings = nftSettings(cluster, family, opts);
    const source = familyPlanSource(cluster, settings.common);
    // At most: the fixed chains, four per service port, one per endpoint.
    const expectedChains = 32 + 4 * source.servicePortCount + source.endpointBound;
    const w = new DumpWriter(settings.words.word, TABLE_NAME, TABLE_COMMENT, expectedChains);
    addSetup(w, settings);
    source.forEach((plan) => addServicePort(w, plan, settings));
    return w;
  });
  for (const w of writers) w.write(write);
}

/** A text computed on first use (a caller that wants the dump does not pay for the listing). */
function lazy(make: () => string): () => string {
  let v: string | undefined;
  return () => (v ??= make());
}

export function renderNftables(cluster: Cluster, opts: NftablesOptions): NftablesResult {
  const families = opts.node.ipFamilies.map((family): NftablesFamilyResult => {
    const table = nftablesTable(cluster, family, opts);
    const dump = lazy(() => dumpTable(table));
    const transaction = lazy(() => firstSyncTransaction(cluster, family, opts));
    const list = lazy(() => listTable(table));
    return {
      family,
      table,
      get dump() {
        return dump();
      },
      get transaction() {
        return transaction();
      },
      get list() {
        return list();
      },
    };
  });
  const joined = (pick: (f: NftablesFamilyResult) => string) =>
    lazy(() => families.map(pick).join(""));
  const dump = joined((f) => f.dump);
  const transaction = joined((f) => f.transaction);
  const list = joined((f) => f.list);
  return {
    get dump() {
      return dump();
    },
    get transaction() {
      return transaction();
    },
    get list() {
      return list();
    },
    ruleSet: { tables: families.map((f) => f.table) },
    families,
  };
}
