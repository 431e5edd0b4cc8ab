/** Text renderings of a truth table: TSV rows, the upstream e2e `.`/`X` grid, JSON rows. */
import { matrixRows, type MatrixProbe, type PolicyMatrix } from "./matrix.js";

export const MATRIX_TSV_HEADER = "from\tto\tport\tprotocol\tallowed";

export function* matrixTsvLines(m: PolicyMatrix): Generator<string> {
  yield `${MATRIX_TSV_HEADER}\n`;
  for (const r of matrixRows(m))
    yield `${r.from}\t${r.to}\t${r.port}\t${r.protocol}\t${r.allowed}\n`;
}

/**
 * One grid per probe, like the e2e suite's TruthTable.PrettyPrint: a header `-` then the
 * destinations, one row per source, `.` = allowed and `X` = blocked, tab-separated.
 */
export function formatMatrixGrid(m: PolicyMatrix): string {
  const n = m.pods.length;
  const P = m.probes.length;
  const out: string[] = [];
  m.probes.forEach((probe: MatrixProbe, k) => {
    out.push(`${probe.protocol}/${probe.port}:`);
    out.push(["-", ...m.pods].join("\t"));
    for (let i = 0; i < n; i++) {
      const line = [m.pods[i] as string];
      for (let j = 0; j < n; j++) line.push(m.verdicts[(i * n + j) * P + k] === 1 ? "." : "X");
      out.push(line.join("\t"));
    }
    out.push("");
  });
  return `${out.join("\n")}`;
}

export function matrixJson(m: PolicyMatrix): string {
  return `${JSON.stringify([...matrixRows(m)], null, 2)}\n`;
}
