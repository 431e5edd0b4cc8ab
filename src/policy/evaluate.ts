/** `evaluatePolicy`: one connection, its verdict and the explanation. */
import type { Cluster } from "../model/cluster.js";
import { isValidPort, parseProtocol } from "../net/port.js";
import type { CompiledPolicies } from "./compiled.js";
import { compilePolicies } from "./compile.js";
import type { Connection } from "./connection.js";
import { PolicyInputError, resolveEndpoint, type EndpointSpec } from "./endpoint.js";
import { explainConnection } from "./explain.js";
import type { PolicyExplanation } from "./explanation.js";
import type { Verdict } from "./verdict3.js";
import { completeOptions, type PolicyOptions } from "./options.js";

export interface PolicyQuery {
  readonly from: EndpointSpec;
  readonly to: EndpointSpec;
  /** Destination port after Service translation (the container port). */
  readonly port: number;
  /** `TCP` (default), `UDP` or `SCTP`; any case. */
  readonly protocol?: string;
}

export interface PolicyVerdict {
  /** `verdict === "allowed"`. */
  readonly allowed: boolean;
  /** "unknown": the verdict depends on domainNames that cannot be resolved offline. */
  readonly verdict: Verdict;
  readonly explanation: PolicyExplanation;
}

export function isCompiled(x: Cluster | CompiledPolicies): x is CompiledPolicies {
  return "facts" in x;
}

export function toCompiled(
  x: Cluster | CompiledPolicies,
  options?: Partial<PolicyOptions>,
): CompiledPolicies {
  return isCompiled(x) ? x : compilePolicies(x, options?.dnsMap);
}

/** Builds the Connection for a query; throws PolicyInputError on bad input. */
export function queryConnection(
  cp: CompiledPolicies,
  q: PolicyQuery,
): { conn: Connection; notes: string[] } {
  if (!isValidPort(q.port))
    throw new PolicyInputError(`port ${String(q.port)}: must be between 1 and 65535`);
  const protocol = parseProtocol(q.protocol ?? "TCP");
  if (protocol === undefined)
    throw new PolicyInputError(
      `protocol "${String(q.protocol)}": supported values: "TCP", "UDP", "SCTP"`,
    );
  const src = resolveEndpoint(cp.facts, q.from);
  const dst = resolveEndpoint(cp.facts, q.to);
  const notes: string[] = [];
  for (const e of [src, dst])
    if (e.viaIP !== undefined && e.party.kind === "pod")
      notes.push(`${e.viaIP} is the IP of pod ${e.party.pod.id}; evaluated as that pod`);
  return { conn: { src: src.party, dst: dst.party, port: q.port, protocol }, notes };
}

/**
 * Is the connection allowed by the cluster's AdminNetworkPolicies, NetworkPolicies and
 * BaselineAdminNetworkPolicy? `from`/`to`: `"ns/pod"`, an IP, `{pod}` or `{ip}`.
 * Throws PolicyInputError for an unknown pod or a bad IP, port or protocol.
 */
export function evaluatePolicy(
  cluster: Cluster | CompiledPolicies,
  query: PolicyQuery,
  options?: Partial<PolicyOptions>,
): PolicyVerdict {
  const cp = toCompiled(cluster, options);
  const opts = completeOptions(options);
  const { conn, notes } = queryConnection(cp, query);
  const ex = explainConnection(cp, conn, opts);
  const explanation: PolicyExplanation =
    notes.length === 0
      ? ex
      : {
          ...ex,
          choices: [
            ...notes.map((message) => ({ kind: "ip-is-pod" as const, message })),
            ...ex.choices,
          ],
        };
  return { allowed: explanation.allowed, verdict: explanation.verdict, explanation };
}
