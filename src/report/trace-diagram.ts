/**
 * `trace --output dot|svg`: a trace as a graph for docs and CI artefacts. The packet enters,
 * walks the chains its matched rules jump through (an edge per jump, labelled with the rule
 * number), and ends in one box per outcome with its probability; the chain holding the rule
 * that decided an outcome is highlighted. DOT is Graphviz's language; SVG is laid out here.
 */
import type { TraceResult } from "../netfilter/trace/index.js";
import { placeGraph, type GraphEdge, type GraphNode } from "./layout.js";
import { GRAPH_STYLE, graphSvg } from "./svg.js";

const DECIDING = new Set(["DNAT", "DROP", "REJECT", "ACCEPT"]);

export interface TraceGraph {
  readonly title: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

export function traceGraph(r: TraceResult): TraceGraph {
  const p = r.packet;
  const title = `${p.proto} ${p.src}:${p.sport} -> ${p.dst}:${p.dport} (${r.origin})`;
  const nodes = new Map<string, GraphNode>([
    ["packet", { id: "packet", label: title, kind: "entry" }],
  ]);
  const edges = new Map<string, GraphEdge>();
  const edge = (from: string, to: string, label?: string): void => {
    const key = `${from}\t${to}`;
    if (!edges.has(key)) edges.set(key, { from, to, ...(label !== undefined ? { label } : {}) });
  };
  r.outcomes.forEach((o, i) => {
    const steps = r.explanation.outcomes[i] ?? [];
    let at = "packet";
    let decider: string | undefined;
    for (const s of steps) {
      if (s.kind === "ipvs") {
        const id = `ipvs:${s.virtualServer}`;
        nodes.set(id, { id, label: `IPVS ${s.virtualServer}`, kind: "chain" });
        edge(at, id);
        at = id;
      }
      if (s.kind !== "rule") continue;
      const id = `${s.table}/${s.chain}`;
      if (!nodes.has(id))
        nodes.set(id, { id, label: id, kind: s.chain.startsWith("KUBE-SEP-") ? "sep" : "chain" });
      if (id !== at) edge(at, id);
      at = id;
      if (DECIDING.has(s.target) && s.target === o.verdict) decider = id;
    }
    const end = `outcome:${i}`;
    const label = `${o.verdict}${o.destination !== undefined ? ` ${o.destination}` : ""}${o.masquerade ? " masq" : ""} ${Math.round(o.probability * 10000) / 100}%`;
    nodes.set(end, {
      id: end,
      label,
      kind: o.verdict === "DROP" || o.verdict === "REJECT" ? "verdict" : "endpoint-local",
    });
    edge(at, end);
    if (decider !== undefined) {
      const d = nodes.get(decider)!;
      nodes.set(decider, { ...d, kind: "decider", title: `${d.label}: decided ${o.verdict}` });
    }
  });
  return { title, nodes: [...nodes.values()], edges: [...edges.values()] };
}

function dotString(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

const DOT_STYLE: Readonly<Record<string, string>> = {
  entry: 'fillcolor="#d5e3f0"',
  chain: 'fillcolor="#e8eef5"',
  sep: 'fillcolor="#eef3e6"',
  decider: 'fillcolor="#ffe08a", penwidth=2',
  verdict: 'fillcolor="#c0392b", fontcolor="white"',
  "endpoint-local": 'fillcolor="#2e8b57", fontcolor="white"',
};

export function traceDot(g: TraceGraph): string {
  const lines = [
    "digraph trace {",
    "  rankdir=LR;",
    '  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10];',
    `  label=${dotString(g.title)}; labelloc=t;`,
  ];
  for (const n of g.nodes)
    lines.push(`  ${dotString(n.id)} [label=${dotString(n.label)}, ${DOT_STYLE[n.kind] ?? ""}];`);
  for (const e of g.edges)
    lines.push(
      `  ${dotString(e.from)} -> ${dotString(e.to)}${e.label !== undefined ? ` [label=${dotString(e.label)}]` : ""};`,
    );
  lines.push("}");
  return `${lines.join("\n")}\n`;
}

/** A standalone SVG document (its style inside). */
export function traceSvg(g: TraceGraph): string {
  const svg = graphSvg(placeGraph(g.nodes, g.edges), g.title, GRAPH_STYLE);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svg}\n`;
}
