/**
 * Tracing single rules for explanations: which peer and port entry matched, or why none did.
 */
import type { AdminRule, CompiledAdminPolicy, NetworkPolicyRule } from "./compiled.js";
import { partyText } from "./connection.js";
import type { AdminPolicyTrace, Decision, EntryMatch, RuleTrace } from "./explanation.js";
import {
  adminPeerMatches,
  adminPortMatches,
  networkPolicyPeerMatches,
  policyPortMatches,
  type DirectionContext,
} from "./match.js";
import type { PolicyOptions } from "./options.js";
import { rulesFor } from "./select.js";
import { describeAdminPort, describePolicyPort } from "./describe.js";

function portReason(ctx: DirectionContext, described: readonly string[]): string {
  return `${ctx.protocol}/${ctx.port} is not in ${described.join(", ")}`;
}

export function traceNetworkRule(
  r: NetworkPolicyRule,
  ns: string,
  ctx: DirectionContext,
  opts: PolicyOptions,
): RuleTrace {
  let peer: EntryMatch;
  if (r.peers === "all") peer = { matched: true, index: "all" };
  else {
    const i = r.peers.findIndex((p) => networkPolicyPeerMatches(p, ns, ctx, opts));
    peer =
      i >= 0
        ? { matched: true, index: i }
        : {
            matched: false,
            reason: `${partyText(ctx.peer)} matches none of ${r.peers.length} peer(s)`,
          };
  }
  if (!peer.matched) return { index: r.index, matched: false, peer };
  let port: EntryMatch;
  if (r.ports === "all") port = { matched: true, index: "all" };
  else {
    const i = r.ports.findIndex((p) => policyPortMatches(p, ctx));
    port =
      i >= 0
        ? { matched: true, index: i }
        : {
            matched: false,
            reason: portReason(
              ctx,
              r.ports.map((p) => describePolicyPort(p, ctx.dstPod)),
            ),
          };
  }
  return { index: r.index, matched: port.matched, peer, port };
}

export function traceAdminRule(r: AdminRule, ctx: DirectionContext): RuleTrace {
  const base = {
    index: r.index,
    action: r.action,
    ...(r.name !== undefined ? { name: r.name } : {}),
  };
  const i = r.peers.findIndex((p) => adminPeerMatches(p, r.action, ctx));
  if (i < 0)
    return {
      ...base,
      matched: false,
      peer: {
        matched: false,
        reason: `${partyText(ctx.peer)} matches none of ${r.peers.length} peer(s)`,
      },
    };
  const peer: EntryMatch = { matched: true, index: i };
  let port: EntryMatch;
  if (r.ports === "all") port = { matched: true, index: "all" };
  else {
    const j = r.ports.findIndex((p) => adminPortMatches(p, ctx));
    port =
      j >= 0
        ? { matched: true, index: j }
        : { matched: false, reason: portReason(ctx, r.ports.map(describeAdminPort)) };
  }
  return { ...base, matched: port.matched, peer, port };
}

export interface AdminOutcome {
  readonly traces: AdminPolicyTrace[];
  readonly hit?: { policy: CompiledAdminPolicy; rule: AdminRule };
}

export function traceAdmin(
  policies: readonly CompiledAdminPolicy[],
  ctx: DirectionContext,
): AdminOutcome {
  const traces: AdminPolicyTrace[] = [];
  for (const p of policies) {
    const rules: RuleTrace[] = [];
    const head = {
      tier: p.tier,
      ...(p.tier === "ClusterNetworkPolicy" ? { level: p.level } : {}),
      policy: p.name,
      ...(p.priority !== undefined ? { priority: p.priority } : {}),
    };
    for (const r of rulesFor(p, ctx.direction)) {
      const t = traceAdminRule(r, ctx);
      rules.push(t);
      if (t.matched) {
        traces.push({ ...head, rules });
        return { traces, hit: { policy: p, rule: r } };
      }
    }
    traces.push({ ...head, rules });
  }
  return { traces };
}

export function adminDecision(
  hit: { policy: CompiledAdminPolicy; rule: AdminRule },
  action: "Allow" | "Accept" | "Deny",
): Decision {
  return {
    kind: "admin-rule",
    tier: hit.policy.tier,
    ...(hit.policy.tier === "ClusterNetworkPolicy" ? { level: hit.policy.level } : {}),
    policy: hit.policy.name,
    ...(hit.policy.priority !== undefined ? { priority: hit.policy.priority } : {}),
    rule: hit.rule.index,
    ...(hit.rule.name !== undefined ? { ruleName: hit.rule.name } : {}),
    action,
  };
}
