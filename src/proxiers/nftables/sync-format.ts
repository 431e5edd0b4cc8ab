/**
 * A sync sequence as text: for every sync and family, a `#` header line, then the stale-chain
 * deletion transaction when there is one, then the sync's transaction (or the table after the
 * sync, as a Dump or an `nft list table` listing). `nft -f` ignores the `#` lines, so the
 * transactions of one family can be fed to it in order.
 */
import { listTable } from "../../netfilter/nftables/list.js";
import type { NftFamilySync, NftSync } from "./sync.js";

export type SyncView = "transaction" | "dump" | "list";

const count = (n: number): string => `${n} operation${n === 1 ? "" : "s"}`;

export function formatSyncSequence(syncs: readonly NftSync[], view: SyncView): string {
  let out = "";
  for (const s of syncs) {
    const head = `# sync ${s.index}/${syncs.length} ${s.name} (t=${s.at}s)`;
    for (const f of s.families) out += familyText(head, f, view);
  }
  return out;
}

function familyText(head: string, f: NftFamilySync, view: SyncView): string {
  const table = `${f.table.family} ${f.table.name}`;
  const kind = f.full ? "full sync" : "partial sync";
  if (view === "dump") return `${head}: ${table} after a ${kind}\n${f.dump}`;
  if (view === "list") return `${head}: ${table} after a ${kind}\n${listTable(f.state)}`;
  let out = "";
  if (f.staleChainDeletion.length > 0)
    out += `${head}: ${table}: stale chains deleted first, ${count(f.staleChainDeletion.length)}\n${f.staleChainDeletionText}`;
  return `${out}${head}: ${kind} of ${table}, ${count(f.operations.length)}\n${f.transaction}`;
}
