/** A placed graph as inline SVG: boxes with a class per kind, edges with their labels. */
import { esc } from "./escape.js";
import type { PlacedGraph } from "./layout.js";

function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}

/** The boxes' look, for SVG that stands alone (the report page has the same rules). */
export const GRAPH_STYLE = `svg.graph{font:12px monospace}.edge{fill:none;stroke:#555;stroke-width:1.2}.edge-label{fill:#333;font-size:11px}
.node rect{stroke:#456;stroke-width:1;fill:#e8eef5}.node text{fill:#123}.node.entry rect{fill:#d5e3f0}.node.sep rect{fill:#eef3e6}
.node.decider rect{fill:#ffe08a;stroke-width:2}.node.endpoint-local rect{fill:#2e8b57;stroke:#1d5e3a}.node.endpoint-local text{fill:#fff}
.node.endpoint-remote rect{fill:#fff;stroke:#2e8b57;stroke-dasharray:4 2}.node.verdict rect{fill:#c0392b}.node.verdict text{fill:#fff}`;

export function graphSvg(g: PlacedGraph, title: string, style?: string): string {
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="${g.width}" height="${g.height}" viewBox="0 0 ${g.width} ${g.height}" role="img" aria-label="${esc(title)}">`,
    ...(style !== undefined ? [`<style>${style}</style>`] : []),
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>`,
  ];
  for (const e of g.edges) {
    if (e.points.length === 0) continue;
    const d = e.points.map((p, i) => `${i === 0 ? "M" : "L"}${round(p.x)},${round(p.y)}`).join("");
    parts.push(`<path class="edge" d="${d}" marker-end="url(#arrow)"/>`);
    if (e.label !== undefined && e.labelAt !== undefined)
      parts.push(
        `<text class="edge-label" x="${round(e.labelAt.x)}" y="${round(e.labelAt.y + 4)}" text-anchor="middle">${esc(e.label)}</text>`,
      );
  }
  for (const n of g.nodes) {
    const x = n.x - n.width / 2;
    const y = n.y - n.height / 2;
    parts.push(
      `<g class="node ${esc(n.kind)}"><title>${esc(n.title ?? n.label)}</title><rect x="${round(x)}" y="${round(y)}" width="${round(n.width)}" height="${round(n.height)}" rx="4"/><text x="${round(n.x)}" y="${round(n.y + 4)}" text-anchor="middle">${esc(n.label)}</text></g>`,
    );
  }
  parts.push("</svg>");
  return parts.join("");
}
