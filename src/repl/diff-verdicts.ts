/**
 * `diff`, verdicts part: what a user would observe. Policy truth-table rows whose verdict
 * flipped, and trace outcomes that changed for the session's probe packets: the packets the
 * user traced in the session, plus report/probes.ts's packets for every Service port.
 */
import type { MatrixCell } from "../policy/matrix.js";
import type { Cluster } from "../model/cluster.js";
import { computePolicyMatrix, matrixRows } from "../policy/matrix.js";
import { buildNodeDataplane } from "../node/node-dataplane.js";
import { trace, type PacketSpec, type TraceOutcome } from "../netfilter/trace/index.js";
import { packetKey, servicePackets } from "../report/probes.js";
import type { NodeSettings } from "./diff-rules.js";

export interface PolicyFlip {
  readonly from: string;
  readonly to: string;
  readonly port: number;
  readonly protocol: string;
  readonly before: MatrixCell;
  readonly after: MatrixCell;
}

function declaredPorts(cluster: Cluster): number[] {
  const ports = new Set<number>();
  for (const p of cluster.pods)
    for (const c of p.spec?.containers ?? [])
      for (const cp of c.ports ?? []) ports.add(cp.containerPort);
  return [...ports];
}

export function policyFlips(before: Cluster, after: Cluster): PolicyFlip[] {
  const ports = [...new Set([...declaredPorts(before), ...declaredPorts(after)])].sort(
    (a, b) => a - b,
  );
  const opts = ports.length > 0 ? { ports } : {};
  const verdicts = new Map<string, MatrixCell>();
  for (const r of matrixRows(computePolicyMatrix(before, opts)))
    verdicts.set(`${r.from}\t${r.to}\t${r.port}\t${r.protocol}`, r.allowed);
  const flips: PolicyFlip[] = [];
  for (const r of matrixRows(computePolicyMatrix(after, opts))) {
    const was = verdicts.get(`${r.from}\t${r.to}\t${r.port}\t${r.protocol}`);
    if (was !== undefined && was !== r.allowed)
      flips.push({
        from: r.from,
        to: r.to,
        port: r.port,
        protocol: r.protocol,
        before: was,
        after: r.allowed,
      });
  }
  return flips;
}

function outcomeText(o: TraceOutcome): string {
  const parts: string[] = [o.verdict];
  if (o.destination !== undefined) parts.push(o.destination);
  if (o.masquerade) parts.push("masq");
  if (o.probability !== 1) parts.push(`p=${Number(o.probability.toFixed(4))}`);
  return parts.join(" ");
}

/** One line per packet: its outcomes, or why it could not be traced. */
export function traceSummaries(
  cluster: Cluster,
  s: NodeSettings,
  packets: readonly PacketSpec[],
): Map<string, string> {
  const out = new Map<string, string>();
  let dataplane;
  try {
    dataplane = buildNodeDataplane(cluster, s);
  } catch (e) {
    for (const p of packets)
      out.set(packetKey(p), `error: ${e instanceof Error ? e.message : String(e)}`);
    return out;
  }
  for (const p of packets) {
    try {
      out.set(packetKey(p), trace(dataplane, p).outcomes.map(outcomeText).join(", ") || "none");
    } catch (e) {
      out.set(packetKey(p), `error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}

export interface TraceChange {
  readonly packet: string;
  readonly before: string;
  readonly after: string;
}

export function traceChanges(
  before: Cluster,
  after: Cluster,
  settings: { readonly before: NodeSettings; readonly after: NodeSettings },
  userPackets: readonly PacketSpec[],
): TraceChange[] {
  const nodeIPs = [...new Set([...settings.before.node.nodeIPs, ...settings.after.node.nodeIPs])];
  const all = [
    ...userPackets,
    ...servicePackets(before.services, nodeIPs),
    ...servicePackets(after.services, nodeIPs),
  ];
  const unique = [...new Map(all.map((p) => [packetKey(p), p])).values()];
  const a = traceSummaries(before, settings.before, unique);
  const b = traceSummaries(after, settings.after, unique);
  const out: TraceChange[] = [];
  for (const p of unique) {
    const key = packetKey(p);
    const x = a.get(key) ?? "";
    const y = b.get(key) ?? "";
    if (x !== y) out.push({ packet: key, before: x, after: y });
  }
  return out;
}

export function formatPolicyFlips(flips: readonly PolicyFlip[]): string[] {
  const word = (b: MatrixCell): string => (b === "unknown" ? "unknown" : b ? "allowed" : "denied");
  return flips.map(
    (f) =>
      `  policy ${f.from} -> ${f.to} ${f.port}/${f.protocol}: ${word(f.before)} -> ${word(f.after)}`,
  );
}

export function formatTraceChanges(changes: readonly TraceChange[]): string[] {
  return changes.flatMap((c) => [
    `  trace ${c.packet}:`,
    `    before: ${c.before}`,
    `    after:  ${c.after}`,
  ]);
}
