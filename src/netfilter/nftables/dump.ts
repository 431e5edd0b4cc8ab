/**
 * The knftables fake's `Dump()` (sigs.k8s.io/knftables fake.go): a snapshot of one table that
 * real `nft -f` loads. Order: the table; chains, sets, maps, each sorted by name; then every
 * chain's rules (chains by name, rules in chain order); then elements of each set, then of
 * each map (by name), in insertion order.
 */
import type { NamedSet, Table } from "./model.js";
import {
  chainAddLine,
  elementAddLine,
  ruleAddLine,
  setAddLine,
  tableAddLine,
} from "./knftables-text.js";

const byName = <T extends { readonly name: string }>(xs: readonly T[]): T[] =>
  [...xs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

export function dumpTable(t: Table): string {
  const lines = [tableAddLine(t)];
  const chains = byName(t.chains);
  const sets = byName(t.sets.filter((s) => s.kind === "set"));
  const maps = byName(t.sets.filter((s) => s.kind === "map"));
  for (const c of chains) lines.push(chainAddLine(t, c));
  for (const s of [...sets, ...maps]) lines.push(setAddLine(t, s));
  for (const c of chains) for (const r of c.rules) lines.push(ruleAddLine(t, c.name, r));
  for (const s of [...sets, ...maps]) pushElements(lines, t, s);
  return lines.map((l) => `${l}\n`).join("");
}

function pushElements(lines: string[], t: Table, s: NamedSet): void {
  for (const e of s.elements) lines.push(elementAddLine(t, s.name, e));
}

/** The same table with chains, sets and maps in Dump order (the creation order `nft -f` sees). */
export function inDumpOrder(t: Table): Table {
  return {
    ...t,
    chains: byName(t.chains),
    sets: [
      ...byName(t.sets.filter((s) => s.kind === "set")),
      ...byName(t.sets.filter((s) => s.kind === "map")),
    ],
  };
}
