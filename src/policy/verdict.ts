/**
 * The fast verdict path (no explanation): ANP tier, then NetworkPolicy, then BANP, per direction;
 * a connection is allowed iff the source's egress and the destination's ingress both allow it
 * (spec netpol.md §1.11). `explain.ts` follows the same steps and records them.
 */
import type {
  AdminRule,
  CompiledAdminPolicy,
  CompiledPolicies,
  Direction,
  NetworkPolicyRule,
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

interface PeerMatchedRule {
  readonly action: AdminRule["action"];
  readonly ports: AdminRule["ports"];
}

/**
 * Bulk form of `directionAllowed` for truth tables: the verdicts of one (subject, peer) pair for
 * many probes, as bits (bit k of word k/30). Peers are matched once per rule, ports per probe;
 * the tier logic is the same as `directionAllowed` (tests compare the two on random clusters).
 */
export function directionMask(
  selected: SubjectPolicies,
  direction: Direction,
  subject: PodFacts,
  peer: Party,
  peerIP: DirectionContext["peerIP"],
  probes: readonly { readonly port: number; readonly protocol: DirectionContext["protocol"] }[],
  opts: PolicyOptions,
  out: Uint32Array,
  offset: number,
): void {
  const ctx0 = makeDirectionContext(direction, subject, peer, peerIP, 0, "TCP");
  const adminHits: PeerMatchedRule[] = [];
  for (const p of selected.admin)
    for (const r of rulesFor(p, direction))
      if (r.peers.some((x) => adminPeerMatches(x, r.action, ctx0))) adminHits.push(r);
  const npHits: NetworkPolicyRule["ports"][] = [];
  for (const p of selected.network)
    for (const r of rulesFor(p, direction) ?? [])
      if (
        r.peers === "all" ||
        r.peers.some((x) => networkPolicyPeerMatches(x, p.namespace, ctx0, opts))
      )
        npHits.push(r.ports);
  const banpHits: PeerMatchedRule[] = [];
  if (selected.network.length === 0)
    for (const p of selected.baseline)
      for (const r of rulesFor(p, direction))
        if (r.peers.some((x) => adminPeerMatches(x, r.action, ctx0))) banpHits.push(r);
  const words = Math.ceil(probes.length / 30);
  for (let w = 0; w < words; w++) out[offset + w] = 0;
  for (let k = 0; k < probes.length; k++) {
    const probe = probes[k] as (typeof probes)[number];
    const ctx: DirectionContext = { ...ctx0, port: probe.port, protocol: probe.protocol };
    let allowed: boolean | undefined;
    for (const r of adminHits)
      if (r.ports === "all" || r.ports.some((x) => adminPortMatches(x, ctx))) {
        allowed = r.action === "Allow" ? true : r.action === "Deny" ? false : undefined;
        break;
      }
    if (allowed === undefined) {
      if (selected.network.length > 0)
        allowed = npHits.some(
          (ports) => ports === "all" || ports.some((x) => policyPortMatches(x, ctx)),
        );
      else {
        allowed = true;
        for (const r of banpHits)
          if (r.ports === "all" || r.ports.some((x) => adminPortMatches(x, ctx))) {
            allowed = r.action !== "Deny";
            break;
          }
      }
    }
    if (allowed)
      out[offset + Math.floor(k / 30)] =
        ((out[offset + Math.floor(k / 30)] as number) | (1 << (k % 30))) >>> 0;
  }
}
