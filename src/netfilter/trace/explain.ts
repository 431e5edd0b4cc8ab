/** Words for trace steps (the data stays in TraceStep; renderers call this). */
import { assertNever } from "../../util/assert-never.js";
import type { TraceOutcome, TraceStep } from "./result.js";

function pct(p: number): string {
  return `${Number((p * 100).toPrecision(6))}%`;
}

export function describeStep(s: TraceStep): string {
  switch (s.kind) {
    case "hook":
      return `${s.hook}: table ${s.table}`;
    case "rule":
      return `  ${s.table}/${s.chain}#${s.index} matched -> ${s.target}${s.probability !== undefined ? ` (taken with probability ${pct(s.probability)})` : ""}`;
    case "branch-not-taken":
      return `  ${s.table}/${s.chain}#${s.index} statistic not taken (${pct(s.probability)})`;
    case "policy":
      return `  ${s.table}/${s.chain} policy ${s.policy}`;
    case "route":
      return s.decision === "local"
        ? "routing: destination is a local address -> INPUT"
        : `routing: not local -> forwarded out of ${s.outInterface}`;
    case "dnat":
      return `  DNAT ${s.from} -> ${s.to}`;
    case "snat":
      return `  source NAT ${s.from} -> ${s.to}`;
    case "mark":
      return `  mark ${s.from} -> ${s.to}`;
    case "nat-skipped":
      return `${s.hook}: nat skipped (${s.reason})`;
    case "ipvs":
      return `IPVS: virtual server ${s.virtualServer} -> real server ${s.realServer} (${pct(s.probability)})`;
    case "ipvs-no-real-servers":
      return `IPVS: virtual server ${s.virtualServer} has no real servers: ICMP port unreachable`;
    case "verdict":
      return `verdict: ${s.verdict} (${s.where})`;
    default:
      return assertNever(s);
  }
}

/** One line per outcome: verdict, destination, masquerade, probability. */
export function describeOutcome(o: TraceOutcome): string {
  const parts: string[] = [o.verdict];
  if (o.destination !== undefined) parts.push(`to ${o.destination}`);
  if (o.masquerade) parts.push(`masqueraded${o.source !== undefined ? ` as ${o.source}` : ""}`);
  if (o.sourcePorts !== undefined) parts.push(`source port drawn at random from ${o.sourcePorts}`);
  parts.push(`probability ${pct(o.probability)}`);
  if (o.mark !== "0x0") parts.push(`mark ${o.mark}`);
  return parts.join(", ");
}
