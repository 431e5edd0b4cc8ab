/**
 * Graph layout for the report's pictures: @dagrejs/dagre (layered, Sugiyama-style) places the
 * boxes and routes the edges when the report is written; the page only carries the resulting
 * SVG, so no layout code ships in the HTML.
 */
import dagre from "@dagrejs/dagre";

/**
 * The part of dagre's API used here. Its shipped .d.ts files use extensionless relative imports
 * that NodeNext resolution cannot follow, so the types are stated here instead.
 */
interface Point {
  x: number;
  y: number;
}
interface DagreGraph {
  setGraph(label: Record<string, unknown>): void;
  setDefaultEdgeLabel(f: () => Record<string, unknown>): void;
  setNode(id: string, label: { width: number; height: number }): void;
  setEdge(from: string, to: string, label: Record<string, unknown>): void;
  node(id: string): Point & { width: number; height: number };
  edge(from: string, to: string): { points?: Point[]; x?: number; y?: number };
  graph(): { width?: number; height?: number };
}
const lib = dagre as unknown as {
  graphlib: { Graph: new (opts?: { multigraph?: boolean }) => DagreGraph };
  layout(g: DagreGraph): void;
};

export interface GraphNode {
  readonly id: string;
  readonly label: string;
  /** A CSS class: the kind of box (chain, endpoint-local, endpoint-remote, ...). */
  readonly kind: string;
  /** Shown on hover. */
  readonly title?: string;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
}

export interface PlacedNode extends GraphNode {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface PlacedEdge extends GraphEdge {
  readonly points: readonly { readonly x: number; readonly y: number }[];
  readonly labelAt?: { readonly x: number; readonly y: number };
}

export interface PlacedGraph {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly PlacedNode[];
  readonly edges: readonly PlacedEdge[];
}

/** Monospace-ish width estimate: the SVG uses a fixed font size. */
const CHAR_WIDTH = 7;
const BOX_HEIGHT = 26;

export function placeGraph(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  direction: "LR" | "TB" = "LR",
): PlacedGraph {
  const g = new lib.graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: direction, nodesep: 14, ranksep: 48, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes)
    g.setNode(n.id, { width: n.label.length * CHAR_WIDTH + 16, height: BOX_HEIGHT });
  for (const e of edges)
    g.setEdge(e.from, e.to, {
      ...(e.label !== undefined
        ? { label: e.label, width: e.label.length * CHAR_WIDTH, height: 14, labelpos: "c" }
        : {}),
    });
  lib.layout(g);
  const graph = g.graph();
  return {
    width: Math.ceil(graph.width ?? 0),
    height: Math.ceil(graph.height ?? 0),
    nodes: nodes.map((n) => {
      const p = g.node(n.id);
      return { ...n, x: p.x, y: p.y, width: p.width, height: p.height };
    }),
    edges: edges.map((e) => {
      const p = g.edge(e.from, e.to);
      return {
        ...e,
        points: p.points ?? [],
        ...(e.label !== undefined && p.x !== undefined && p.y !== undefined
          ? { labelAt: { x: p.x, y: p.y } }
          : {}),
      };
    }),
  };
}
