/**
 * The fast verdict path (no explanation): ANP tier, then NetworkPolicy, then BANP, per direction;
 * a connection is allowed iff the source's egress and the destination's ingress both allow it
 * (spec netpol.md §1.11). `explain.ts` follows the same steps and records them.
 */
import type { AdminRule, CompiledAdminPolicy, CompiledPolicies, Direction, NetworkPolicyRule } from "./compiled.js";
import {
  connectionAddresses,
  isLoopback,
  nodeOfParty,
  type Connection,
  type Party,
} from "./connection.js";
import type { PodFacts } from "./facts.js";
import {
  adminPeerMatches,
  adminPortMatches,
  makeDirectionContext,
  networkPolicyPeerMatches,
  policyPortMatches,
  type DirectionContext,
} from "./match.js";
import type { PolicyOptions } from "./options.js";
import { rulesFor, selectPolicies, type SubjectPolicies } from "./select.js";

export function adminRuleMatches(r: AdminRule, ctx: DirectionContext): boolean {
  let peer = false;
  for (const p of r.peers)
    if (adminPeerMatches(p, r.action, ctx)) {
      peer = true;
      break;
    }
  if (!peer) return false;
  if (r.ports === "all") return true;
  for (const p of r.ports) if (adminPortMatches(p, ctx)) return true;
  return false;
}

export function networkPolicyRuleMatches(
  r: NetworkPolicyRule,
  policyNamespace: string,
  ctx: DirectionContext,
  opts: PolicyOptions,
): boolean {
  if (r.peers !== "all") {
    let peer = false;
    for (const p of r.peers)
      if (networkPolicyPeerMatches(p, policyNamespace, ctx, opts)) {
        peer = true;
        break;
      }
    if (!peer) return false;
  }
  if (r.ports === "all") return true;
  for (const p of r.ports) if (policyPortMatches(p, ctx)) return true;
  return false;
}

/** First matching rule's action across the policies in order, or undefined. */
function firstAdminAction(
  policies: readonly CompiledAdminPolicy[],
  ctx: DirectionContext,
): AdminRule["action"] | undefined {
  for (const p of policies)
    for (const r of rulesFor(p, ctx.direction)) if (adminRuleMatches(r, ctx)) return r.action;
  return undefined;
}

/** The verdict of one direction for a subject pod, given the policies that select it. */
export function directionAllowed(
  selected: SubjectPolicies,
  ctx: DirectionContext,
  opts: PolicyOptions,
): boolean {
  const admin = firstAdminAction(selected.admin, ctx);
  if (admin === "Allow") return true;
  if (admin === "Deny") return false;
  // No ANP decision, or Pass: NetworkPolicy, then (only if no NetworkPolicy isolates) BANP.
  if (selected.network.length > 0) {
    for (const p of selected.network)
      for (const r of rulesFor(p, ctx.direction) ?? [])
        if (networkPolicyRuleMatches(r, p.namespace, ctx, opts)) return true;
    return false;
  }
  return firstAdminAction(selected.baseline, ctx) !== "Deny";
}

/** True when the peer is the subject's own node and such ingress is allowed by option. */
export function isLocalNodeIngress(subject: PodFacts, peer: Party, opts: PolicyOptions): boolean {
  if (opts.localNodeIngress !== "allow" || subject.nodeName === undefined) return false;
  return nodeOfParty(peer, opts) === subject.nodeName;
}

export type PolicySelector = (dir: Direction, pod: PodFacts) => SubjectPolicies;

/** The verdict for a whole connection. `select` lets callers cache the selection per pod/class. */
export function connectionAllowed(
  cp: CompiledPolicies,
  conn: Connection,
  opts: PolicyOptions,
  select: PolicySelector = (dir, pod) => selectPolicies(cp, opts, dir, pod),
): boolean {
  if (opts.selfTraffic === "allow" && isLoopback(conn)) return true;
  const { srcIP, dstIP } = connectionAddresses(conn.src, conn.dst);
  if (conn.src.kind === "pod") {
    const sel = select("Egress", conn.src.pod);
    const ctx = makeDirectionContext("Egress", conn.src.pod, conn.dst, dstIP, conn.port, conn.protocol);
    if (!directionAllowed(sel, ctx, opts)) return false;
  }
  if (conn.dst.kind === "pod") {
    if (isLocalNodeIngress(conn.dst.pod, conn.src, opts)) return true;
    const sel = select("Ingress", conn.dst.pod);
    const ctx = makeDirectionContext("Ingress", conn.dst.pod, conn.src, srcIP, conn.port, conn.protocol);
    if (!directionAllowed(sel, ctx, opts)) return false;
  }
  return true;
}
