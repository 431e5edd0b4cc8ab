/**
 * The explaining path: the same steps as `verdict.ts`, recording every policy, rule, peer and port
 * looked at. Used for one connection at a time (`evaluatePolicy`), never for truth tables.
 */
import {
  isAccept,
  type AdminRule,
  type CompiledAdminPolicy,
  type CompiledPolicies,
  type Direction,
} from "./compiled.js";
import { bothAllow, directionVerdict, verdictOf, type UndecidedRule } from "./verdict3.js";
import {
  connectionAddresses,
  isAdminPolicyPod,
  isLoopback,
  isNetworkPolicyPod,
  partyText,
  type Connection,
  type Party,
} from "./connection.js";
import type {
  AdminPolicyTrace,
  Decision,
  DirectionExplanation,
  ImplementationChoice,
  NetworkPolicyTrace,
  PassTrace,
  PolicyExplanation,
} from "./explanation.js";
import type { PodFacts } from "./facts.js";
import { makeDirectionContext, type DirectionContext } from "./match.js";
import type { PolicyOptions } from "./options.js";
import {
  rulesFor,
  selectPolicies,
  withoutClusterNetworkPolicies,
  type SubjectPolicies,
} from "./select.js";

/** The policies that apply; none of the CNPs when the pod reaches its own IP (spec §3.5). */
function selectFor(
  cp: CompiledPolicies,
  opts: PolicyOptions,
  direction: Direction,
  subject: PodFacts,
  peer: Party,
): SubjectPolicies {
  const sel = selectPolicies(cp, opts, direction, subject);
  return peer.kind === "pod" && peer.pod.id === subject.id
    ? withoutClusterNetworkPolicies(sel)
    : sel;
}
import { isLocalNodeIngress } from "./verdict.js";
import { adminDecision, traceAdmin, traceNetworkRule } from "./explain-trace.js";
import { noteCommonChoices } from "./explain-choices.js";

const NOTHING_SELECTED = {
  adminNetworkPolicies: [],
  networkPolicies: [],
  baselineAdminNetworkPolicies: [],
};

function explainDecidedDirection(
  cp: CompiledPolicies,
  opts: PolicyOptions,
  direction: Direction,
  subject: PodFacts,
  peer: Party,
  ctx: DirectionContext,
  choices: ImplementationChoice[],
): DirectionExplanation {
  const base = { direction, subject: subject.id, peer: partyText(peer) };
  const sel = selectFor(cp, opts, direction, subject, peer);
  const empty = {
    adminPolicies: [],
    networkPolicies: [],
    baselinePolicies: [],
    selectedBy: NOTHING_SELECTED,
  };
  if (!isNetworkPolicyPod(subject, opts) && !isAdminPolicyPod(subject)) {
    choices.push({
      kind: "host-network",
      option: "hostNetwork",
      message: `${subject.id} is a hostNetwork pod: no policy selects it (its traffic is node traffic)`,
    });
    return {
      ...base,
      allowed: true,
      verdict: "allowed",
      isolated: false,
      decision: { kind: "not-a-subject", reason: "hostNetwork pod" },
      ...empty,
    };
  }
  if (direction === "Ingress" && isLocalNodeIngress(subject, peer, opts)) {
    choices.push({
      kind: "local-node",
      option: "localNodeIngress",
      message: `traffic from ${subject.id}'s own node ${subject.nodeName ?? ""} is always allowed`,
    });
    return {
      ...base,
      allowed: true,
      verdict: "allowed",
      isolated: false,
      decision: { kind: "local-node", node: subject.nodeName ?? "" },
      ...empty,
    };
  }
  const admin = traceAdmin(sel.admin, ctx);
  let passed: PassTrace | undefined;
  let baselinePassed: PassTrace | undefined;
  const isolated = sel.network.length > 0;
  const finish = (
    allowed: boolean,
    decision: Decision,
    np: NetworkPolicyTrace[],
    banp: AdminPolicyTrace[],
  ): DirectionExplanation => ({
    ...base,
    allowed,
    verdict: verdictOf(allowed),
    decision,
    ...(passed !== undefined ? { passed } : {}),
    ...(baselinePassed !== undefined ? { baselinePassed } : {}),
    isolated,
    selectedBy: {
      adminNetworkPolicies: sel.admin.map((p) => p.name),
      networkPolicies: sel.network.map((p) => p.id),
      baselineAdminNetworkPolicies: sel.baseline.map((p) => p.name),
    },
    adminPolicies: admin.traces,
    networkPolicies: np,
    baselinePolicies: banp,
  });
  if (admin.hit !== undefined) {
    const { policy, rule } = admin.hit;
    noteTies(sel.admin, policy, choices);
    if (rule.action !== "Pass")
      return finish(isAccept(rule.action), adminDecision(admin.hit, rule.action), [], []);
    passed = passTrace(admin.hit);
  }
  if (isolated) {
    const traces: NetworkPolicyTrace[] = [];
    let allow: { policy: string; rule: number } | undefined;
    for (const p of sel.network) {
      const rules = (rulesFor(p, direction) ?? []).map((r) =>
        traceNetworkRule(r, p.namespace, ctx, opts),
      );
      traces.push({ policy: p.id, rules });
      const hit = rules.find((r) => r.matched);
      if (allow === undefined && hit !== undefined) allow = { policy: p.id, rule: hit.index };
    }
    return allow !== undefined
      ? finish(
          true,
          { kind: "networkpolicy-allow", policy: allow.policy, rule: allow.rule },
          traces,
          [],
        )
      : finish(
          false,
          { kind: "networkpolicy-deny", policies: sel.network.map((p) => p.id) },
          traces,
          [],
        );
  }
  const banp = traceAdmin(sel.baseline, ctx);
  if (banp.hit !== undefined) noteTies(sel.baseline, banp.hit.policy, choices);
  if (banp.hit !== undefined && banp.hit.rule.action !== "Pass")
    return finish(
      isAccept(banp.hit.rule.action),
      adminDecision(banp.hit, banp.hit.rule.action),
      [],
      banp.traces,
    );
  if (banp.hit !== undefined) baselinePassed = passTrace(banp.hit);
  return finish(true, { kind: "default-allow" }, [], banp.traces);
}

function passTrace(hit: { policy: CompiledAdminPolicy; rule: AdminRule }): PassTrace {
  const { policy, rule } = hit;
  return {
    ...(policy.tier === "ClusterNetworkPolicy" ? { tier: policy.tier, level: policy.level } : {}),
    policy: policy.name,
    ...(policy.priority !== undefined ? { priority: policy.priority } : {}),
    rule: rule.index,
    ...(rule.name !== undefined ? { ruleName: rule.name } : {}),
  };
}

/** Equal priorities in the deciding tier (spec §3.3): order undefined upstream; ours is stated. */
function noteTies(
  tier: readonly CompiledAdminPolicy[],
  policy: CompiledAdminPolicy,
  choices: ImplementationChoice[],
): void {
  if (policy.priority === undefined) return;
  const tied = tier.filter((p) => p !== policy && p.priority === policy.priority);
  if (tied.length === 0) return;
  const all = [policy, ...tied];
  const mixed = all.some((p) => p.tier !== policy.tier);
  const names = all.map((p) => `${p.tier} ${p.name}`).join(", ");
  choices.push(
    mixed
      ? {
          kind: "api-tie",
          message: `${names} share ${policy.level} priority ${policy.priority} across API versions: upstream leaves their order undefined; evaluated ClusterNetworkPolicy first, then by name`,
        }
      : {
          kind: "equal-anp-priority",
          message: `${policy.tier === "ClusterNetworkPolicy" ? `${policy.level}-tier ClusterNetworkPolicies` : "AdminNetworkPolicies"} ${all.map((p) => p.name).join(", ")} share priority ${policy.priority}: upstream leaves their order undefined; evaluated by name`,
        },
  );
}

/** The direction's explanation, with the verdict "unknown" when unresolved domainNames decide. */
function explainDirection(
  cp: CompiledPolicies,
  opts: PolicyOptions,
  direction: Direction,
  subject: PodFacts,
  peer: Party,
  ctx: DirectionContext,
  choices: ImplementationChoice[],
): DirectionExplanation {
  const ex = explainDecidedDirection(cp, opts, direction, subject, peer, ctx, choices);
  if (!cp.undecidable || ex.decision.kind === "not-a-subject" || ex.decision.kind === "local-node")
    return ex;
  const undecided: UndecidedRule[] = [];
  const sel = selectFor(cp, opts, direction, subject, peer);
  if (directionVerdict(sel, ctx, opts, undecided) !== "unknown") return ex;
  const rules = undecided.map(({ policy, rule }) => ({
    tier: policy.tier,
    level: policy.level,
    policy: policy.name,
    ...(policy.priority !== undefined ? { priority: policy.priority } : {}),
    rule: rule.index,
    ...(rule.name !== undefined ? { ruleName: rule.name } : {}),
    action: rule.action,
    names: rule.peers.flatMap((p) => (p.kind === "domainNames" ? p.unresolved : [])),
  }));
  return { ...ex, allowed: false, verdict: "unknown", decision: { kind: "undecidable", rules } };
}

function notSubject(direction: Direction, party: Party, peer: Party): DirectionExplanation {
  return {
    direction,
    subject: partyText(party),
    peer: partyText(peer),
    allowed: true,
    verdict: "allowed",
    decision: {
      kind: "not-a-subject",
      reason:
        party.kind === "ip" && party.node !== undefined
          ? `address of node ${party.node}`
          : "not a pod",
    },
    isolated: false,
    selectedBy: NOTHING_SELECTED,
    adminPolicies: [],
    networkPolicies: [],
    baselinePolicies: [],
  };
}

export function explainConnection(
  cp: CompiledPolicies,
  conn: Connection,
  opts: PolicyOptions,
): PolicyExplanation {
  const from = partyText(conn.src);
  const to = partyText(conn.dst);
  const head = { from, to, port: conn.port, protocol: conn.protocol };
  const choices: ImplementationChoice[] = [];
  if (opts.selfTraffic === "allow" && isLoopback(conn)) {
    const d = (direction: Direction): DirectionExplanation => ({
      direction,
      subject: from,
      peer: to,
      allowed: true,
      verdict: "allowed",
      decision: { kind: "loopback" },
      isolated: false,
      selectedBy: NOTHING_SELECTED,
      adminPolicies: [],
      networkPolicies: [],
      baselinePolicies: [],
    });
    choices.push({
      kind: "loopback",
      option: "selfTraffic",
      message:
        "a pod talking to its own IP is allowed (a pod cannot block access to itself; upstream leaves hairpin undefined)",
    });
    return {
      ...head,
      allowed: true,
      verdict: "allowed",
      egress: d("Egress"),
      ingress: d("Ingress"),
      choices,
    };
  }
  const { srcIP, dstIP } = connectionAddresses(conn.src, conn.dst);
  const egress =
    conn.src.kind === "pod"
      ? explainDirection(
          cp,
          opts,
          "Egress",
          conn.src.pod,
          conn.dst,
          makeDirectionContext("Egress", conn.src.pod, conn.dst, dstIP, conn.port, conn.protocol),
          choices,
        )
      : notSubject("Egress", conn.src, conn.dst);
  const ingress =
    conn.dst.kind === "pod"
      ? explainDirection(
          cp,
          opts,
          "Ingress",
          conn.dst.pod,
          conn.src,
          makeDirectionContext("Ingress", conn.dst.pod, conn.src, srcIP, conn.port, conn.protocol),
          choices,
        )
      : notSubject("Ingress", conn.dst, conn.src);
  noteCommonChoices(cp, conn, opts, { egress, ingress }, choices);
  const verdict = bothAllow(egress.verdict, ingress.verdict);
  return { ...head, allowed: verdict === "allowed", verdict, egress, ingress, choices };
}
