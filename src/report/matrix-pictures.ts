/**
 * `policy matrix --output html|svg`: the truth table's heat maps alone, as an HTML page (the
 * report's policy section) or as one standalone SVG (cells with their explanation as a hover
 * title), for docs and CI artefacts.
 */
import type { Cluster } from "../model/cluster.js";
import type { MatrixOptions } from "../policy/matrix.js";
import { esc } from "./escape.js";
import { heatmapHtml, heatmaps, LEGEND_HEAT, type Heatmap } from "./heatmap.js";
import { page } from "./page.js";

export function policyMatrixHtml(cluster: Cluster, options?: MatrixOptions): string {
  const maps = heatmaps(cluster, options);
  return page("kube-netsim policy truth table", "", [
    {
      id: "policy",
      title: "Policy truth table",
      html: `${LEGEND_HEAT}<div style="display:flex;gap:16px;align-items:flex-start"><div>${maps.map(heatmapHtml).join("\n")}</div><pre id="why">hover a cell</pre></div>`,
    },
  ]);
}

const CELL = 16;
const CHAR = 7;

function mapSvg(h: Heatmap, top: number, labelWidth: number): { svg: string; height: number } {
  const n = h.pods.length;
  const header = Math.round(labelWidth * 0.75 + 20);
  const out: string[] = [
    `<text x="0" y="${top + 14}" font-weight="bold">${h.port}/${esc(h.protocol)} (rows: from, columns: to)</text>`,
  ];
  const gridTop = top + 20 + header;
  h.pods.forEach((p, j) => {
    const x = labelWidth + j * CELL + CELL / 2;
    out.push(`<text transform="translate(${x + 4},${gridTop - 4}) rotate(-60)">${esc(p)}</text>`);
  });
  h.pods.forEach((from, i) => {
    const y = gridTop + i * CELL;
    out.push(`<text x="${labelWidth - 6}" y="${y + 12}" text-anchor="end">${esc(from)}</text>`);
    h.pods.forEach((to, j) => {
      const c = h.cells[i]?.[j];
      const verdict = c?.allowed === true ? "allowed" : "denied";
      const title = `${from} → ${to} ${h.port}/${h.protocol}: ${verdict}${c?.why !== undefined ? `\n${c.why}` : ""}`;
      out.push(
        `<rect class="${verdict}" x="${labelWidth + j * CELL}" y="${y}" width="${CELL - 1}" height="${CELL - 1}"><title>${esc(title)}</title></rect>`,
      );
    });
  });
  return { svg: out.join(""), height: 20 + header + n * CELL + 16 };
}

export function policyMatrixSvg(cluster: Cluster, options?: MatrixOptions): string {
  const maps = heatmaps(cluster, options);
  const longest = Math.max(
    8,
    ...cluster.pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`.length),
  );
  const labelWidth = longest * CHAR + 12;
  const parts: string[] = [];
  let y = 24;
  parts.push(
    `<rect class="allowed" x="0" y="4" width="12" height="12"/><text x="16" y="14">allowed</text><rect class="denied" x="80" y="4" width="12" height="12"/><text x="96" y="14">denied (hover a cell for the explanation)</text>`,
  );
  for (const h of maps) {
    const m = mapSvg(h, y, labelWidth);
    parts.push(m.svg);
    y += m.height;
  }
  const width = Math.max(420, labelWidth + (cluster.pods.length + 4) * CELL);
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="monospace" font-size="11"><style>.allowed{fill:#2e8b57}.denied{fill:#c0392b}</style>${parts.join("")}</svg>
`;
}
