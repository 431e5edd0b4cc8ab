/**
 * Three-valued verdicts: "unknown" when the outcome depends on a `domainNames` peer that cannot
 * be resolved offline (spec cluster-network-policy.md §2.4, O4). A rule whose match is unknown
 * is followed both ways (it matches: its action decides; it does not: evaluation goes on); when
 * both ways give the same verdict that verdict holds, otherwise it is "unknown". Without such
 * peers this computes exactly `connectionAllowed` (tests compare them on random clusters).
 */
import {
  isAccept,
  type AdminRule,
  type CompiledAdminPolicy,
  type CompiledPolicies,
} from "./compiled.js";
import { connectionAddresses, isLoopback, type Connection } from "./connection.js";
import {
  adminPeerMatch3,
  adminPortMatches,
  makeDirectionContext,
  type DirectionContext,
} from "./match.js";
import type { PolicyOptions } from "./options.js";
import {
  rulesFor,
  selectPolicies,
  withoutClusterNetworkPolicies,
  type SubjectPolicies,
} from "./select.js";
import { isLocalNodeIngress, networkPolicyRuleMatches, type PolicySelector } from "./verdict.js";

export type Verdict = "allowed" | "denied" | "unknown";

export function verdictOf(allowed: boolean): Verdict {
  return allowed ? "allowed" : "denied";
}

/** Both ways of an undecided rule. */
function join(a: Verdict, b: Verdict): Verdict {
  return a === b ? a : "unknown";
}

/** Both directions must allow. */
export function bothAllow(a: Verdict, b: Verdict): Verdict {
  if (a === "denied" || b === "denied") return "denied";
  return a === "allowed" && b === "allowed" ? "allowed" : "unknown";
}

/** A rule that could have decided the verdict but whose match is unknown. */
export interface UndecidedRule {
  readonly policy: CompiledAdminPolicy;
  readonly rule: AdminRule;
}

export function adminRuleMatch3(r: AdminRule, ctx: DirectionContext): boolean | "unknown" {
  let peer: boolean | "unknown" = false;
  for (const p of r.peers) {
    const m = adminPeerMatch3(p, r.action, ctx);
    if (m === true) {
      peer = true;
      break;
    }
    if (m === "unknown") peer = "unknown";
  }
  if (peer === false) return false;
  if (r.ports !== "all" && !r.ports.some((p) => adminPortMatches(p, ctx))) return false;
  return peer;
}

/** One tier: rules in order; Pass and "no match" continue with `next`. */
function tierVerdict(
  policies: readonly CompiledAdminPolicy[],
  ctx: DirectionContext,
  next: () => Verdict,
  undecided: UndecidedRule[],
): Verdict {
  const rules: UndecidedRule[] = [];
  for (const policy of policies)
    for (const rule of rulesFor(policy, ctx.direction)) rules.push({ policy, rule });
  let memo: Verdict | undefined;
  const after = (): Verdict => (memo ??= next());
  const from = (i: number): Verdict => {
    for (let k = i; k < rules.length; k++) {
      const hit = rules[k] as UndecidedRule;
      const m = adminRuleMatch3(hit.rule, ctx);
      if (m === false) continue;
      const action = hit.rule.action;
      const decided: () => Verdict = () =>
        action === "Pass" ? after() : verdictOf(isAccept(action));
      if (m === true) return decided();
      const v = join(decided(), from(k + 1));
      if (v === "unknown") undecided.push(hit);
      return v;
    }
    return after();
  };
  return from(0);
}

export function directionVerdict(
  selected: SubjectPolicies,
  ctx: DirectionContext,
  opts: PolicyOptions,
  undecided: UndecidedRule[] = [],
): Verdict {
  const networkThenBaseline = (): Verdict => {
    if (selected.network.length > 0) {
      for (const p of selected.network)
        for (const r of rulesFor(p, ctx.direction) ?? [])
          if (networkPolicyRuleMatches(r, p.namespace, ctx, opts)) return "allowed";
      return "denied";
    }
    return tierVerdict(selected.baseline, ctx, () => "allowed", undecided);
  };
  return tierVerdict(selected.admin, ctx, networkThenBaseline, undecided);
}

/** The verdict for a whole connection, three-valued. */
export function connectionVerdict(
  cp: CompiledPolicies,
  conn: Connection,
  opts: PolicyOptions,
  select: PolicySelector = (dir, pod) => selectPolicies(cp, opts, dir, pod),
): Verdict {
  const loopback = isLoopback(conn);
  if (opts.selfTraffic === "allow" && loopback) return "allowed";
  if (loopback) {
    const all = select;
    select = (dir, pod) => withoutClusterNetworkPolicies(all(dir, pod));
  }
  const { srcIP, dstIP } = connectionAddresses(conn.src, conn.dst);
  let egress: Verdict = "allowed";
  if (conn.src.kind === "pod") {
    const ctx = makeDirectionContext(
      "Egress",
      conn.src.pod,
      conn.dst,
      dstIP,
      conn.port,
      conn.protocol,
    );
    egress = directionVerdict(select("Egress", conn.src.pod), ctx, opts);
    if (egress === "denied") return egress;
  }
  let ingress: Verdict = "allowed";
  if (conn.dst.kind === "pod" && !isLocalNodeIngress(conn.dst.pod, conn.src, opts)) {
    const ctx = makeDirectionContext(
      "Ingress",
      conn.dst.pod,
      conn.src,
      srcIP,
      conn.port,
      conn.protocol,
    );
    ingress = directionVerdict(select("Ingress", conn.dst.pod), ctx, opts);
  }
  return bothAllow(egress, ingress);
}
