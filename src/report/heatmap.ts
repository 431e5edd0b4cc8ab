/**
 * The policy truth table as heat maps: one grid per (port, protocol), rows the source pod,
 * columns the destination pod, each cell allowed or denied with the explanation on hover.
 */
import type { Cluster } from "../model/cluster.js";
import { computePolicyMatrix, type MatrixOptions, type PolicyMatrix } from "../policy/matrix.js";
import { evaluatePolicy, toCompiled } from "../policy/evaluate.js";
import { formatExplanation } from "../policy/explanation-text.js";
import { esc } from "./escape.js";

/** Above this many cells per report, cells carry the verdict only (explaining each is slow). */
export const EXPLAINED_CELLS = 5000;

export interface Heatmap {
  readonly port: number;
  readonly protocol: string;
  readonly pods: readonly string[];
  /** [from][to]: allowed, and the explanation when computed. */
  readonly cells: readonly (readonly { readonly allowed: boolean; readonly why?: string }[])[];
}

/**
 * The heat maps of the cluster's policy matrix, of the pods `shown` (their `namespace/name`, in
 * the matrix's order; all by default): each cell is still the verdict of the whole cluster's
 * policies, which do not depend on what else is drawn.
 */
export function heatmaps(
  cluster: Cluster,
  options?: MatrixOptions,
  shown?: ReadonlySet<string>,
): Heatmap[] {
  const cp = toCompiled(cluster);
  const m: PolicyMatrix = computePolicyMatrix(cp, options);
  const n = m.pods.length;
  const P = m.probes.length;
  const drawn = m.pods.flatMap((id, i) => (shown === undefined || shown.has(id) ? [i] : []));
  const explain = drawn.length * drawn.length * P <= EXPLAINED_CELLS;
  return m.probes.map((probe, k) => ({
    port: probe.port,
    protocol: probe.protocol,
    pods: drawn.map((i) => m.pods[i]!),
    cells: drawn.map((i) =>
      drawn.map((j) => {
        const allowed = m.verdicts[(i * n + j) * P + k] === 1;
        if (!explain) return { allowed };
        const v = evaluatePolicy(
          cp,
          { from: m.pods[i]!, to: m.pods[j]!, port: probe.port, protocol: probe.protocol },
          options,
        );
        return { allowed, why: formatExplanation(v.explanation) };
      }),
    ),
  }));
}

export function heatmapHtml(h: Heatmap): string {
  const head = h.pods.map((p) => `<th class="to" scope="col"><span>${esc(p)}</span></th>`).join("");
  const rows = h.pods
    .map((from, i) => {
      const cells = h.pods
        .map((to, j) => {
          const c = h.cells[i]?.[j];
          const verdict = c?.allowed === true ? "allowed" : "denied";
          const title = `${from} → ${to} ${h.port}/${h.protocol}: ${verdict}${c?.why !== undefined ? `\n${c.why}` : ""}`;
          return `<td class="cell ${verdict}" data-why="${esc(title)}" title="${esc(title)}">${c?.allowed === true ? "" : "×"}</td>`;
        })
        .join("");
      return `<tr><th class="from" scope="row">${esc(from)}</th>${cells}</tr>`;
    })
    .join("\n");
  return `<table class="heatmap" data-port="${h.port}" data-protocol="${esc(h.protocol)}"><caption>${h.port}/${esc(h.protocol)} <small>(rows: from, columns: to)</small></caption><thead><tr><th class="corner">from \\ to</th>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

export const LEGEND_HEAT = `<p class="legend"><span><i class="swatch allowed"></i>allowed</span><span><i class="swatch denied"></i>denied (×)</span>rows: from (source pod), columns: to (destination pod); hover a cell for the explanation.</p>`;
