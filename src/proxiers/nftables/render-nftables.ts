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
import { listTable } from "../../netfilter/nftables/list.js";
import type { Table } from "../../netfilter/nftables/model.js";
import { planFamily } from "../common/plan.js";
import { addServicePort } from "./service-port.js";
import { nftSettings, type NftablesOptions } from "./settings.js";
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

/** The table one per-family proxier writes on a full sync. */
export function nftablesTable(cluster: Cluster, family: IPFamily, opts: NftablesOptions): Table {
  const settings = nftSettings(cluster, family, opts);
  const b = new TableBuilder(settings.words.word, TABLE_NAME, TABLE_COMMENT);
  addSetup(b, settings);
  for (const plan of planFamily(cluster, settings.common).servicePorts)
    addServicePort(b, plan, settings);
  return inDumpOrder(b.build());
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
