/** Text renderings of a truth table: TSV rows, the upstream e2e `.`/`X` grid, JSON rows. */
import {
  ALLOWED,
  sortedMatrixRows,
  UNKNOWN,
  type MatrixProbe,
  type PolicyMatrix,
} from "./matrix.js";

export const MATRIX_TSV_HEADER = "from\tto\tport\tprotocol\tallowed";

export function* matrixTsvLines(m: PolicyMatrix): Generator<string> {
  yield `${MATRIX_TSV_HEADER}\n`;
  for (const r of sortedMatrixRows(m))
    yield `${r.from}\t${r.to}\t${r.port}\t${r.protocol}\t${r.allowed}\n`;
}

/** What the grid's symbols and axes mean; printed above the grids. */
export const MATRIX_GRID_LEGEND = [
  "# rows: from (source pod); columns: to (destination pod); one grid per port/protocol",
  "# . allowed   X denied   ? unknown (depends on domainNames that cannot be resolved offline)",
];

/**
 * One grid per probe, like the e2e suite's TruthTable.PrettyPrint: a header `-` then the
 * destinations, one row per source, `.` = allowed and `X` = blocked, tab-separated; `?` for an
 * unknown verdict. Pods and probes are sorted, so file order does not change the output.
 */
export function formatMatrixGrid(m: PolicyMatrix): string {
  const n = m.pods.length;
  const P = m.probes.length;
  const pods = m.pods
    .map((id, i) => ({ id, i }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const probes = m.probes
    .map((probe, k) => ({ probe, k }))
    .sort(
      (a, b) =>
        a.probe.port - b.probe.port ||
        (a.probe.protocol < b.probe.protocol ? -1 : a.probe.protocol > b.probe.protocol ? 1 : 0),
    );
  const out: string[] = [...MATRIX_GRID_LEGEND, ""];
  probes.forEach(({ probe, k }: { probe: MatrixProbe; k: number }) => {
    out.push(`${probe.protocol}/${probe.port}:`);
    out.push(["-", ...pods.map((p) => p.id)].join("\t"));
    for (const from of pods) {
      const line = [from.id];
      for (const to of pods) {
        const v = m.verdicts[(from.i * n + to.i) * P + k];
        line.push(v === ALLOWED ? "." : v === UNKNOWN ? "?" : "X");
      }
      out.push(line.join("\t"));
    }
    out.push("");
  });
  return `${out.join("\n")}`;
}

export function matrixJson(m: PolicyMatrix): string {
  return `${JSON.stringify([...sortedMatrixRows(m)], null, 2)}\n`;
}
