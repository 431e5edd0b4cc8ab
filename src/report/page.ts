/**
 * The report page: one HTML file with its style and a few lines of script inline, no external
 * resource of any kind (it opens from a CI artefact, offline). The script only moves the hover
 * explanation of a heat-map cell into the side panel; everything else is static markup.
 */
import { esc } from "./escape.js";
import { GRAPH_STYLE } from "./svg.js";

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:12px 20px}header a{color:#cfe3ff}header h1{margin:0;font-size:20px}
main{padding:12px 20px}section{background:#fff;border:1px solid #ddd;border-radius:6px;margin:14px 0;padding:10px 16px}
h2{font-size:17px;margin:6px 0 10px}h3{font-size:15px;margin:14px 0 6px}h4{margin:8px 0 4px;font-size:13px;font-family:monospace}
.note{color:#666}.legend span{display:inline-block;margin-right:14px}.swatch{display:inline-block;width:14px;height:14px;vertical-align:middle;margin-right:4px;border:1px solid #999}
table.heatmap{border-collapse:collapse;margin:6px 0 14px;font-size:12px}table.heatmap caption{text-align:left;font-weight:600;padding:4px 0}
table.heatmap th{font-weight:normal;font-family:monospace;padding:2px 6px}th.from{text-align:right}
th.to{height:110px;vertical-align:bottom;white-space:nowrap}th.to span{display:inline-block;transform:rotate(-60deg);transform-origin:left bottom;width:18px}
td.cell{width:18px;height:18px;text-align:center;border:1px solid #fff;cursor:default;color:#fff;font-size:11px}
.allowed{background:#2e8b57}.denied{background:#c0392b}td.cell:hover{outline:2px solid #000}
#why{position:sticky;top:8px;margin-left:90px;max-width:520px;white-space:pre-wrap;font:12px monospace;background:#f3f6f9;border:1px solid #ccd;padding:8px;min-height:40px}
svg.graph{max-width:100%;height:auto}
${GRAPH_STYLE}
.trace{margin:6px 0 12px}.outcome{margin:4px 0 10px}.outcome-head{font-weight:600;margin-bottom:3px}
.hooks{display:flex;flex-wrap:wrap;align-items:flex-start;gap:4px}.hook{border:1px solid #bbc;border-radius:4px;padding:4px 6px;background:#f6f8fb;font:11px monospace}
.hook-name{font-weight:700;margin-bottom:2px}.hook ul{margin:0;padding-left:14px}.arrow{align-self:center;color:#777}
li.decider{background:#ffe08a;font-weight:700}
dl.summary dt{font-weight:600;margin-top:6px}dl.summary dd{margin-left:16px}code{font-size:12px}
`;

const SCRIPT = `
document.addEventListener("mouseover",function(e){var t=e.target;if(t&&t.classList&&t.classList.contains("cell")){var w=document.getElementById("why");if(w)w.textContent=t.getAttribute("data-why");}});
`;

export interface PageSection {
  readonly id: string;
  readonly title: string;
  readonly html: string;
}

export function page(title: string, subtitle: string, sections: readonly PageSection[]): string {
  const nav = sections.map((s) => `<a href="#${esc(s.id)}">${esc(s.title)}</a>`).join(" · ");
  const body = sections
    .map((s) => `<section id="${esc(s.id)}"><h2>${esc(s.title)}</h2>${s.html}</section>`)
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><header><h1>${esc(title)}</h1><div>${esc(subtitle)}</div><nav>${nav}</nav></header>
<main>
${body}
</main><script>${SCRIPT}</script></body></html>
`;
}
