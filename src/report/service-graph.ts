/**
 * The chains a packet for one Service walks, as a graph: iptables mode from the nat table kube-
 * proxy wrote (KUBE-SERVICES / KUBE-NODEPORTS → KUBE-EXT / KUBE-SVC / KUBE-SVL / KUBE-FW →
 * KUBE-SEP → the DNAT destination, each statistic branch with its probability), IPVS mode from
 * the virtual servers and their real servers. Endpoints on this node are marked local.
 */
import type { Chain, Rule, RuleSet } from "../netfilter/model.js";
import { formatIP } from "../net/index.js";
import type { IpvsState } from "../proxiers/ipvs/index.js";
import type { GraphEdge, GraphNode } from "./layout.js";

export interface ServiceGraph {
  /** `ns/name`. */
  readonly service: string;
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

/** Endpoint address → true when the endpoint runs on this node. */
export type Locality = (ip: string) => boolean | undefined;

function comment(rule: Rule): string | undefined {
  for (const m of rule.matches) if (m.module === "comment") return m.comment;
  return undefined;
}

function probability(rule: Rule): number | undefined {
  for (const m of rule.matches)
    if (m.module === "statistic" && m.mode === "random" && !m.negated) return m.probability;
  return undefined;
}

function jumpTarget(rule: Rule): string | undefined {
  return rule.target?.kind === "jump" ? rule.target.chain : undefined;
}

const SERVICE_CHAIN = /^KUBE-(SVC|SVL|EXT|FW|SEP|XLB)-/;
const ENTRY_CHAINS = ["KUBE-SERVICES", "KUBE-NODEPORTS"];

function endpointNode(dest: string, locality: Locality): GraphNode {
  const ip = dest.startsWith("[") ? dest.slice(1, dest.indexOf("]")) : (dest.split(":")[0] ?? dest);
  const local = locality(ip);
  return {
    id: `ep:${dest}`,
    label: dest,
    kind: local === true ? "endpoint-local" : local === false ? "endpoint-remote" : "endpoint",
    title: `${dest}: ${local === true ? "on this node (local)" : local === false ? "on another node (remote)" : "node unknown"}`,
  };
}

function dnatDestination(rule: Rule): string | undefined {
  const t = rule.target;
  if (t?.kind !== "DNAT" || t.to.ipFrom === undefined) return undefined;
  const ip = formatIP(t.to.ipFrom);
  const host = ip.includes(":") ? `[${ip}]` : ip;
  return t.to.ports !== undefined ? `${host}:${t.to.ports.from}` : host;
}

/**
 * The iptables graph of every Service whose rules name `ns/name` (of those `wanted`, when
 * given: the others' chains are not walked).
 */
export function iptablesServiceGraphs(
  ruleSet: RuleSet,
  locality: Locality,
  wanted: (service: string) => boolean = () => true,
): ServiceGraph[] {
  const nat = ruleSet.tables.find((t) => t.name === "nat");
  if (nat === undefined) return [];
  const chains = new Map<string, Chain>(nat.chains.map((c) => [c.name, c]));
  const byService = new Map<string, { nodes: Map<string, GraphNode>; edges: GraphEdge[] }>();
  const graphOf = (svc: string) => {
    let g = byService.get(svc);
    if (g === undefined) byService.set(svc, (g = { nodes: new Map(), edges: [] }));
    return g;
  };
  for (const entry of ENTRY_CHAINS) {
    const chain = chains.get(entry);
    for (const rule of chain?.rules ?? []) {
      const target = jumpTarget(rule);
      const text = comment(rule);
      if (target === undefined || text === undefined || !SERVICE_CHAIN.test(target)) continue;
      const svc = /^([^/\s]+\/[^:\s]+)/.exec(text)?.[1];
      if (svc === undefined || !wanted(svc)) continue;
      const g = graphOf(svc);
      g.nodes.set(entry, { id: entry, label: entry, kind: "entry" });
      const label = text.replace(/^[^\s]+\s?/, "");
      g.edges.push({ from: entry, to: target, ...(label !== "" ? { label } : {}) });
      walk(target, g, chains, locality, new Set());
    }
  }
  return [...byService.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([service, g]) => ({ service, nodes: [...g.nodes.values()], edges: dedupe(g.edges) }));
}

function walk(
  name: string,
  g: { nodes: Map<string, GraphNode>; edges: GraphEdge[] },
  chains: ReadonlyMap<string, Chain>,
  locality: Locality,
  seen: Set<string>,
): void {
  if (seen.has(name)) return;
  seen.add(name);
  const chain = chains.get(name);
  g.nodes.set(name, {
    id: name,
    label: name,
    kind: name.startsWith("KUBE-SEP-") ? "sep" : "chain",
  });
  if (chain === undefined) return;
  // A statistic branch is taken with its probability of what reaches it; what remains falls through.
  let remaining = 1;
  for (const rule of chain.rules) {
    const dest = dnatDestination(rule);
    if (dest !== undefined) {
      const ep = endpointNode(dest, locality);
      g.nodes.set(ep.id, ep);
      g.edges.push({ from: name, to: ep.id, label: "DNAT" });
      continue;
    }
    if (rule.target?.kind === "DROP" || rule.target?.kind === "REJECT") {
      const id = `verdict:${rule.target.kind}`;
      g.nodes.set(id, {
        id,
        label: rule.target.kind,
        kind: "verdict",
        title: comment(rule) ?? rule.target.kind,
      });
      g.edges.push({ from: name, to: id });
      continue;
    }
    const target = jumpTarget(rule);
    if (target === undefined || !SERVICE_CHAIN.test(target)) continue;
    const p = probability(rule);
    const share = p === undefined ? remaining : remaining * p;
    g.edges.push({
      from: name,
      to: target,
      ...(target.startsWith("KUBE-SEP-") ? { label: `${Math.round(share * 1000) / 10}%` } : {}),
    });
    if (p !== undefined) remaining -= share;
    else remaining = 0;
    walk(target, g, chains, locality, seen);
  }
}

function dedupe(edges: readonly GraphEdge[]): GraphEdge[] {
  const seen = new Map<string, GraphEdge>();
  for (const e of edges) if (!seen.has(`${e.from}\t${e.to}`)) seen.set(`${e.from}\t${e.to}`, e);
  return [...seen.values()];
}

/**
 * IPVS: each virtual server of a Service and its real servers with their weight shares (of the
 * Services `wanted`, when given).
 */
export function ipvsServiceGraphs(
  state: IpvsState,
  locality: Locality,
  wanted: (service: string) => boolean = () => true,
): ServiceGraph[] {
  const byService = new Map<string, { nodes: Map<string, GraphNode>; edges: GraphEdge[] }>();
  for (const f of state.families)
    for (const vs of f.virtualServers) {
      const svc = vs.servicePortName.replace(/:[^:]*$/, "");
      if (!wanted(svc)) continue;
      let g = byService.get(svc);
      if (g === undefined) byService.set(svc, (g = { nodes: new Map(), edges: [] }));
      const addr = formatIP(vs.virtualServer.address);
      const label = `${vs.virtualServer.protocol} ${addr.includes(":") ? `[${addr}]` : addr}:${vs.virtualServer.port} (${vs.virtualServer.scheduler})`;
      const id = `vs:${label}`;
      g.nodes.set(id, {
        id,
        label,
        kind: "chain",
        title: `virtual server for ${vs.servicePortName} (${vs.source})`,
      });
      const total = vs.realServers.reduce((s, r) => s + r.weight, 0);
      for (const rs of vs.realServers) {
        const ra = formatIP(rs.address);
        const dest = `${ra.includes(":") ? `[${ra}]` : ra}:${rs.port}`;
        const ep = endpointNode(dest, locality);
        g.nodes.set(ep.id, ep);
        g.edges.push({
          from: id,
          to: ep.id,
          label: total > 0 ? `${Math.round((rs.weight / total) * 1000) / 10}%` : "weight 0",
        });
      }
      if (vs.realServers.length === 0) {
        const none = `none:${id}`;
        g.nodes.set(none, { id: none, label: "no real servers", kind: "verdict" });
        g.edges.push({ from: id, to: none });
      }
    }
  return [...byService.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([service, g]) => ({ service, nodes: [...g.nodes.values()], edges: dedupe(g.edges) }));
}
