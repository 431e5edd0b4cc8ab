/**
 * Matchers over a TraceResult (`trace(...)`): where the packet goes, whether it is
 * masqueraded, rejected or dropped. On failure they print every outcome with its probability
 * and rule path, as `kube-netsim trace` does.
 */
import { describeOutcome } from "../netfilter/trace/explain.js";
import {
  formatTracedPacket,
  type TraceOutcome,
  type TraceResult,
} from "../netfilter/trace/result.js";
import { wrongReceived, type MatcherContextLike, type MatcherResult } from "./context.js";

function isTraceResult(x: unknown): x is TraceResult {
  return typeof x === "object" && x !== null && "outcomes" in x && "packet" in x;
}

/** The trace as text: the packet, then one line per outcome with its rule path. */
export function formatOutcomes(r: TraceResult): string {
  const lines = [`packet: ${formatTracedPacket(r.packet)} (${r.origin})`];
  if (r.outcomes.length === 0) lines.push("  no outcomes");
  for (const o of r.outcomes)
    lines.push(
      `  ${describeOutcome(o)}`,
      `    path: ${o.path.length > 0 ? o.path.join(" ") : "(no rule)"}`,
    );
  return lines.join("\n");
}

/** Where an outcome delivers the packet (`ip:port`), or undefined when it is dropped/rejected. */
export function reachedAddress(r: TraceResult, o: TraceOutcome): string | undefined {
  if (o.verdict === "DROP" || o.verdict === "REJECT") return undefined;
  if (o.destination !== undefined) return o.destination;
  const dst = r.packet.dst.includes(":") ? `[${r.packet.dst}]` : r.packet.dst;
  return `${dst}:${r.packet.dport}`;
}

type TraceCheck = (r: TraceResult) => boolean;

function traceMatcher(
  name: string,
  expectation: (args: unknown[]) => string,
  check: (args: unknown[]) => TraceCheck,
) {
  return function (this: MatcherContextLike, received: unknown, ...args: unknown[]): MatcherResult {
    if (!isTraceResult(received))
      return wrongReceived(name, "a TraceResult (trace(...))", received);
    const pass = check(args)(received);
    return {
      pass,
      message: () =>
        `expected the packet ${this.isNot === true ? "not " : ""}${expectation(args)}\n\n${formatOutcomes(received)}`,
    };
  };
}

const reached = (r: TraceResult): string[] =>
  r.outcomes.flatMap((o) => {
    const a = reachedAddress(r, o);
    return a === undefined ? [] : [a];
  });

/** Some outcome (probability > 0) delivers the packet to `ip:port`. */
export const toReach = traceMatcher(
  "toReach",
  ([to]) => `to reach ${String(to)}`,
  ([to]) =>
    (r) =>
      r.outcomes.some((o) => o.probability > 0 && reachedAddress(r, o) === to),
);

/** Every outcome delivers the packet, and exactly to the listed `ip:port`s (each reached). */
export const toReachOnly = traceMatcher(
  "toReachOnly",
  ([to]) => `to reach exactly ${JSON.stringify(to)} (and never be dropped or rejected)`,
  ([to]) =>
    (r) => {
      const want = new Set(Array.isArray(to) ? (to as unknown[]).map(String) : [String(to)]);
      const got = reached(r);
      if (got.length !== r.outcomes.length || got.length === 0) return false;
      return got.every((a) => want.has(a)) && [...want].every((a) => got.includes(a));
    },
);

/** Every outcome is delivered with its source NATed (MASQUERADE/SNAT). */
export const toBeMasqueraded = traceMatcher(
  "toBeMasqueraded",
  () => "to be masqueraded in every outcome",
  () => (r) => r.outcomes.length > 0 && r.outcomes.every((o) => o.masquerade),
);

/** Every outcome is REJECT. */
export const toBeRejected = traceMatcher(
  "toBeRejected",
  () => "to be rejected in every outcome",
  () => (r) => r.outcomes.length > 0 && r.outcomes.every((o) => o.verdict === "REJECT"),
);

/** Every outcome is DROP. */
export const toBeDropped = traceMatcher(
  "toBeDropped",
  () => "to be dropped in every outcome",
  () => (r) => r.outcomes.length > 0 && r.outcomes.every((o) => o.verdict === "DROP"),
);
