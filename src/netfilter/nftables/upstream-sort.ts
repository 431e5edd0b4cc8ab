/**
 * The upstream tests' comparison form (`sortNFTablesTransaction`, spec §7): empty and `#` lines
 * dropped; stable sort by object type (table, chain, rule, set, map, element), then by object
 * name (word 5) in byte order; rules of one chain keep their order; other ties by whole line.
 */
const RANK: Readonly<Record<string, number>> = {
  table: 0,
  chain: 1,
  rule: 2,
  set: 3,
  map: 4,
  element: 5,
};

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function sortNftablesTransaction(text: string): string {
  const lines = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  const keyed = lines.map((line, index) => {
    const w = line.split(" ");
    return { line, index, type: w[1] ?? "", name: w[4] ?? "" };
  });
  keyed.sort((a, b) => {
    const r = (RANK[a.type] ?? 99) - (RANK[b.type] ?? 99);
    if (r !== 0) return r;
    const n = cmp(a.name, b.name);
    if (n !== 0) return n;
    if (a.type === "rule") return a.index - b.index;
    return cmp(a.line, b.line) || a.index - b.index;
  });
  return keyed.map((k) => k.line).join("\n");
}
