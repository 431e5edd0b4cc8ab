/**
 * `renderNftables(cluster, { proxyConfig, node })`: kube-proxy's nftables table per IP family
 * of the node (`ip kube-proxy`, `ip6 kube-proxy`), as typed data and in three texts: the
 * knftables fake's Dump, the first full sync's transaction, and `nft list table` once loaded.
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
import { fullSyncTransaction } from "./transaction.js";

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

export function renderNftables(cluster: Cluster, opts: NftablesOptions): NftablesResult {
  const families = opts.node.ipFamilies.map((family): NftablesFamilyResult => {
    const table = nftablesTable(cluster, family, opts);
    return {
      family,
      table,
      dump: dumpTable(table),
      transaction: fullSyncTransaction(table),
      list: listTable(table),
    };
  });
  return {
    dump: families.map((f) => f.dump).join(""),
    transaction: families.map((f) => f.transaction).join(""),
    list: families.map((f) => f.list).join(""),
    ruleSet: { tables: families.map((f) => f.table) },
    families,
  };
}
