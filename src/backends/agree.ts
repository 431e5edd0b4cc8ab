/**
 * Whether one real observation is one of the simulator's predicted outcomes. The simulator
 * answers with a distribution over outcomes; a real backend with one sample, so the sample
 * agrees when some outcome of non-zero probability predicts exactly it: the server reached
 * (address and port after DNAT) and the source it saw (the SNAT source when masqueraded), a
 * rejection (REJECT: ICMP error or RST), or a drop (DROP: no answer within the probe's time).
 */
import { joinHostPort, parseIP, formatIP } from "../net/index.js";
import type { TraceOutcome, TraceResult } from "../netfilter/trace/result.js";
import type { Observation } from "./backend.js";

export type Agreement = "agree" | "disagree" | "skipped";

function canonical(ip: string): string {
  const a = parseIP(ip.replace(/^\[|\]$/g, ""), "lenient");
  return a === undefined ? ip : formatIP(a);
}

/** `ip:port` → [ip, port]; IPv6 as `[ip]:port`. */
function splitHostPort(hp: string): [string, string] {
  const colon = hp.lastIndexOf(":");
  return [canonical(hp.slice(0, colon)), hp.slice(colon + 1)];
}

/** Where a delivered outcome ends: the server address and the source it sees. */
export function deliveredTo(
  packet: TraceResult["packet"],
  o: TraceOutcome,
): { readonly to: string; readonly seenSource: string } | undefined {
  if (o.verdict === "DROP" || o.verdict === "REJECT" || o.delivery === "stopped") return undefined;
  const to = o.destination ?? joinHostPort(packet.dst, packet.dport);
  const seenSource =
    o.masquerade && o.source !== undefined ? splitHostPort(o.source)[0] : packet.src;
  return { to, seenSource: canonical(seenSource) };
}

function outcomeAgrees(packet: TraceResult["packet"], o: TraceOutcome, obs: Observation): boolean {
  if (o.probability <= 0) return false;
  switch (obs.kind) {
    case "delivered": {
      const d = deliveredTo(packet, o);
      if (d === undefined) return false;
      const [ip, port] = splitHostPort(d.to);
      const [oip, oport] = splitHostPort(obs.to);
      return ip === oip && port === oport && d.seenSource === canonical(obs.seenSource);
    }
    case "rejected":
      return o.verdict === "REJECT";
    case "dropped":
      return o.verdict === "DROP" || (o.delivery === "stopped" && o.verdict !== "REJECT");
    case "skipped":
      return false;
  }
}

export function compareObservation(prediction: TraceResult, observation: Observation): Agreement {
  if (observation.kind === "skipped") return "skipped";
  return prediction.outcomes.some((o) => outcomeAgrees(prediction.packet, o, observation))
    ? "agree"
    : "disagree";
}

/** The library's one definition of agreement (a skipped observation agrees with nothing). */
export function agrees(prediction: TraceResult, observation: Observation): boolean {
  return compareObservation(prediction, observation) === "agree";
}

/** One line for an observation, as the agreement table prints it. */
export function describeObservation(o: Observation): string {
  switch (o.kind) {
    case "delivered":
      return `delivered to ${o.to} from ${o.seenSource}`;
    case "rejected":
      return "rejected";
    case "dropped":
      return "dropped";
    case "skipped":
      return `skipped: ${o.reason}`;
  }
}

/** The set of observations a prediction allows, one line (for the agreement table). */
export function describePrediction(p: TraceResult): string {
  const parts = p.outcomes.map((o) => {
    const d = deliveredTo(p.packet, o);
    const what =
      d !== undefined
        ? `delivered to ${d.to} from ${d.seenSource}`
        : o.verdict === "REJECT"
          ? "rejected"
          : "dropped";
    return p.outcomes.length > 1 ? `${what} (p=${Math.round(o.probability * 1000) / 1000})` : what;
  });
  return [...new Set(parts)].join(" | ");
}
