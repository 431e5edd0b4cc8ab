/**
 * Naming the two ends of a connection: `"ns/pod"`, an IP, `{ pod: "ns/pod" }` or `{ ip: "..." }`.
 * An IP that belongs to a pod-network pod is that pod (policies select pods, not addresses); an IP
 * of a node (or of a hostNetwork pod) is node traffic; anything else is an outside address.
 */
import { ValidationError } from "../issue/validation-error.js";
import { formatIP, parseIP } from "../net/address.js";
import type { Party } from "./connection.js";
import type { ClusterFacts } from "./facts.js";

export type EndpointSpec = string | { readonly pod: string } | { readonly ip: string };

/**
 * Bad user input (unknown pod, unparsable IP or port) in a policy query: a `ValidationError`
 * with one `invalid` issue (no file: the query comes from arguments or code).
 */
export class PolicyInputError extends ValidationError {
  constructor(message: string) {
    super([{ code: "invalid", severity: "error", message, path: [] }]);
    this.name = "PolicyInputError";
  }
}

export interface ResolvedEndpoint {
  readonly party: Party;
  /** Set when an IP was recognised as a pod's IP. */
  readonly viaIP?: string;
}

function resolvePod(facts: ClusterFacts, ref: string): ResolvedEndpoint {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1 || ref.indexOf("/", slash + 1) !== -1)
    throw new PolicyInputError(`"${ref}": expected NAMESPACE/POD or an IP address`);
  const pod = facts.podsById.get(ref);
  if (pod === undefined) throw new PolicyInputError(`pod ${ref} not found`);
  return { party: { kind: "pod", pod } };
}

function resolveIP(facts: ClusterFacts, text: string): ResolvedEndpoint {
  const ip = parseIP(text, "strict");
  if (ip === undefined) {
    const named = facts.pods.filter((p) => p.name === text).map((p) => p.id);
    throw new PolicyInputError(
      `"${text}": not a valid IP address; a pod is given as NAMESPACE/POD (with its namespace), e.g. ${named.length > 0 ? named.join(" or ") : `default/${text}`}, or give an IP address`,
    );
  }
  const canon = formatIP(ip);
  const pod = (facts.podsByIP.get(canon) ?? []).find((p) => !p.hostNetwork);
  if (pod !== undefined) return { party: { kind: "pod", pod }, viaIP: canon };
  return { party: { kind: "ip", ip, node: facts.nodeByIP.get(canon) } };
}

export function resolveEndpoint(facts: ClusterFacts, spec: EndpointSpec): ResolvedEndpoint {
  if (typeof spec === "string")
    return spec.includes("/") ? resolvePod(facts, spec) : resolveIP(facts, spec);
  return "pod" in spec ? resolvePod(facts, spec.pod) : resolveIP(facts, spec.ip);
}
