/**
 * The fast verdict path (no explanation): ANP tier, then NetworkPolicy, then BANP, per direction;
 * a connection is allowed iff the source's egress and the destination's ingress both allow it
 * (spec netpol.md §1.11). `explain.ts` follows the same steps and records them.
 */
import {
  isAccept,
  type AdminRule,
  type CompiledAdminPolicy,
  type CompiledPolicies,
  type Direction,
  type NetworkPolicyRule,
} from "./compiled.js";
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
  adminPortMatchesAt,
  makeDirectionContext,
  networkPolicyPeerMatches,
  policyPortMatches,
  policyPortMatchesAt,
  type DirectionContext,
} from "./match.js";
import type { Protocol } from "../net/port.js";
import type { PolicyOptions } from "./options.js";
import {
  rulesFor,
  selectPolicies,
  withoutClusterNetworkPolicies,
  type SubjectPolicies,
} from "./select.js";

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
  if (admin === "Allow" || admin === "Accept") return true;
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
  const loopback = isLoopback(conn);
  if (opts.selfTraffic === "allow" && loopback) return true;
  if (loopback) {
    const all = select;
    select = (dir, pod) => withoutClusterNetworkPolicies(all(dir, pod));
  }
  const { srcIP, dstIP } = connectionAddresses(conn.src, conn.dst);
  if (conn.src.kind === "pod") {
    const sel = select("Egress", conn.src.pod);
    const ctx = makeDirectionContext(
      "Egress",
      conn.src.pod,
      conn.dst,
      dstIP,
      conn.port,
      conn.protocol,
    );
    if (!directionAllowed(sel, ctx, opts)) return false;
  }
  if (conn.dst.kind === "pod") {
    if (isLocalNodeIngress(conn.dst.pod, conn.src, opts)) return true;
    const sel = select("Ingress", conn.dst.pod);
    const ctx = makeDirectionContext(
      "Ingress",
      conn.dst.pod,
      conn.src,
      srcIP,
      conn.port,
      conn.protocol,
    );
    if (!directionAllowed(sel, ctx, opts)) return false;
  }
  return true;
}

/**
 * Bulk form of `directionAllowed` for truth tables: the verdicts of one (subject, peer) pair for
 * many probes, as bits (bit k % 30 of word k / 30). Peers are matched once per rule, ports per
 * probe; the tier logic is that of `directionAllowed` (tests compare the two on random clusters).
 */
export function directionMask(
  selected: SubjectPolicies,
  direction: Direction,
  subject: PodFacts,
  peer: Party,
  peerIP: DirectionContext["peerIP"],
  probes: readonly { readonly port: number; readonly protocol: Protocol }[],
  opts: PolicyOptions,
  out: Uint32Array,
  offset: number,
): void {
  const ctx = makeDirectionContext(direction, subject, peer, peerIP, 0, "TCP");
  const dstPod = ctx.dstPod;
  // Rules whose peers match, per tier, in evaluation order.
  const adminHits: AdminRule[] = [];
  for (const p of selected.admin)
    for (const r of rulesFor(p, direction))
      for (const x of r.peers)
        if (adminPeerMatches(x, r.action, ctx)) {
          adminHits.push(r);
          break;
        }
  const isolated = selected.network.length > 0;
  const npHits: NetworkPolicyRule["ports"][] = [];
  for (const p of selected.network)
    for (const r of rulesFor(p, direction) ?? []) {
      if (r.peers === "all") npHits.push(r.ports);
      else
        for (const x of r.peers)
          if (networkPolicyPeerMatches(x, p.namespace, ctx, opts)) {
            npHits.push(r.ports);
            break;
          }
    }
  const banpHits: AdminRule[] = [];
  if (!isolated)
    for (const p of selected.baseline)
      for (const r of rulesFor(p, direction))
        for (const x of r.peers)
          if (adminPeerMatches(x, r.action, ctx)) {
            banpHits.push(r);
            break;
          }
  const firstAdmin = (
    hits: readonly AdminRule[],
    port: number,
    protocol: Protocol,
  ): AdminRule | undefined => {
    for (const r of hits) {
      if (r.ports === "all") return r;
      for (const x of r.ports) if (adminPortMatchesAt(x, port, protocol, dstPod)) return r;
    }
    return undefined;
  };
  const words = Math.ceil(probes.length / 30);
  for (let w = 0; w < words; w++) out[offset + w] = 0;
  for (let k = 0; k < probes.length; k++) {
    const { port, protocol } = probes[k] as (typeof probes)[number];
    const admin = adminHits.length > 0 ? firstAdmin(adminHits, port, protocol) : undefined;
    let allowed: boolean;
    if (admin !== undefined && admin.action !== "Pass") allowed = isAccept(admin.action);
    else if (isolated) {
      allowed = false;
      for (const ports of npHits) {
        if (ports === "all") allowed = true;
        else
          for (const x of ports) if (policyPortMatchesAt(x, port, protocol, dstPod)) allowed = true;
        if (allowed) break;
      }
    } else
      allowed = banpHits.length === 0 || firstAdmin(banpHits, port, protocol)?.action !== "Deny";
    if (allowed) {
      const w = offset + Math.floor(k / 30);
      out[w] = ((out[w] as number) | (1 << (k % 30))) >>> 0;
    }
  }
}
