/**
 * The explaining path: the same steps as `verdict.ts`, recording every policy, rule, peer and port
 * looked at. Used for one connection at a time (`evaluatePolicy`), never for truth tables.
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
  EntryMatch,
  ImplementationChoice,
  NetworkPolicyTrace,
  PassTrace,
  PolicyExplanation,
  RuleTrace,
} from "./explanation.js";
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
import { rulesFor, selectPolicies } from "./select.js";
import { isLocalNodeIngress } from "./verdict.js";
import { describeAdminPort, describePolicyPort } from "./describe.js";

const NOTHING_SELECTED = {
  adminNetworkPolicies: [],
  networkPolicies: [],
  baselineAdminNetworkPolicies: [],
};

function portReason(ctx: DirectionContext, described: readonly string[]): string {
  return `${ctx.protocol}/${ctx.port} is not in ${described.join(", ")}`;
}

function traceNetworkRule(
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

function traceAdminRule(r: AdminRule, ctx: DirectionContext): RuleTrace {
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

interface AdminOutcome {
  readonly traces: AdminPolicyTrace[];
  readonly hit?: { policy: CompiledAdminPolicy; rule: AdminRule };
}

function traceAdmin(policies: readonly CompiledAdminPolicy[], ctx: DirectionContext): AdminOutcome {
  const traces: AdminPolicyTrace[] = [];
  for (const p of policies) {
    const rules: RuleTrace[] = [];
    const head = {
      tier: p.tier,
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

function adminDecision(
  hit: { policy: CompiledAdminPolicy; rule: AdminRule },
  action: "Allow" | "Deny",
): Decision {
  return {
    kind: "admin-rule",
    tier: hit.policy.tier,
    policy: hit.policy.name,
    ...(hit.policy.priority !== undefined ? { priority: hit.policy.priority } : {}),
    rule: hit.rule.index,
    ...(hit.rule.name !== undefined ? { ruleName: hit.rule.name } : {}),
    action,
  };
}

function explainDirection(
  cp: CompiledPolicies,
  opts: PolicyOptions,
  direction: Direction,
  subject: PodFacts,
  peer: Party,
  ctx: DirectionContext,
  choices: ImplementationChoice[],
): DirectionExplanation {
  const base = { direction, subject: subject.id, peer: partyText(peer) };
  const sel = selectPolicies(cp, opts, direction, subject);
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
      isolated: false,
      decision: { kind: "local-node", node: subject.nodeName ?? "" },
      ...empty,
    };
  }
  const admin = traceAdmin(sel.admin, ctx);
  let passed: PassTrace | undefined;
  const isolated = sel.network.length > 0;
  const finish = (
    allowed: boolean,
    decision: Decision,
    np: NetworkPolicyTrace[],
    banp: AdminPolicyTrace[],
  ): DirectionExplanation => ({
    ...base,
    allowed,
    decision,
    ...(passed !== undefined ? { passed } : {}),
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
    const tied = sel.admin.filter((p) => p !== policy && p.priority === policy.priority);
    if (tied.length > 0)
      choices.push({
        kind: "equal-anp-priority",
        message: `AdminNetworkPolicies ${[policy, ...tied].map((p) => p.name).join(", ")} share priority ${policy.priority ?? 0}: upstream leaves their order undefined; evaluated by name`,
      });
    if (rule.action !== "Pass")
      return finish(rule.action === "Allow", adminDecision(admin.hit, rule.action), [], []);
    passed = {
      policy: policy.name,
      ...(policy.priority !== undefined ? { priority: policy.priority } : {}),
      rule: rule.index,
      ...(rule.name !== undefined ? { ruleName: rule.name } : {}),
    };
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
  if (banp.hit !== undefined && banp.hit.rule.action !== "Pass")
    return finish(
      banp.hit.rule.action === "Allow",
      adminDecision(banp.hit, banp.hit.rule.action),
      [],
      banp.traces,
    );
  return finish(true, { kind: "default-allow" }, [], banp.traces);
}

function notSubject(direction: Direction, party: Party, peer: Party): DirectionExplanation {
  return {
    direction,
    subject: partyText(party),
    peer: partyText(peer),
    allowed: true,
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

function noteCommonChoices(
  cp: CompiledPolicies,
  conn: Connection,
  opts: PolicyOptions,
  ex: { egress: DirectionExplanation; ingress: DirectionExplanation },
  choices: ImplementationChoice[],
): void {
  for (const party of [conn.src, conn.dst])
    if (party.kind === "pod" && party.pod.ips.length === 0)
      choices.push({
        kind: "pod-without-ip",
        message: `${party.pod.id} has no IP (not running?): ipBlock, networks and nodes peers cannot match it`,
      });
  const { srcIP } = connectionAddresses(conn.src, conn.dst);
  if (
    srcIP === undefined &&
    conn.src.kind === "pod" &&
    conn.dst.kind === "pod" &&
    conn.src.pod.ips.length > 0 &&
    conn.dst.pod.ips.length > 0
  )
    choices.push({
      kind: "no-common-family",
      message: "the two pods share no IP family; address-based peers cannot match",
    });
  // A pod peer matched through an ipBlock: the e2e suite requires it, np-guard does not.
  for (const d of [ex.egress, ex.ingress]) {
    const peerParty = d.direction === "Egress" ? conn.dst : conn.src;
    if (peerParty.kind !== "pod") continue;
    for (const t of d.networkPolicies) {
      const np = cp.allNetworkPolicies.find((p) => p.id === t.policy);
      for (const r of t.rules) {
        const rule = np === undefined ? undefined : rulesFor(np, d.direction)?.[r.index];
        if (
          r.peer.matched &&
          typeof r.peer.index === "number" &&
          rule !== undefined &&
          rule.peers !== "all"
        ) {
          if (rule.peers[r.peer.index]?.kind === "ipBlock")
            choices.push({
              kind: "ip-block-pod-ip",
              option: "ipBlockMatchesPods",
              message: `${t.policy} matched pod ${peerParty.pod.id} through an ipBlock (pod IPs match ipBlocks, as the e2e suite requires)`,
            });
        }
      }
    }
  }
  for (const d of [ex.egress, ex.ingress])
    for (const t of [...d.adminPolicies, ...d.baselinePolicies]) {
      const p = [...cp.adminPolicies, ...cp.baselinePolicies].find(
        (a) => a.name === t.policy && a.tier === t.tier,
      );
      if (p === undefined) continue;
      for (const r of rulesFor(p, d.direction))
        if (
          r.peers.some((x) => x.kind === "domainNames") &&
          t.rules.some((x) => x.index === r.index)
        )
          choices.push({
            kind: "domain-names",
            message: `${t.policy} rule ${r.index} has domainNames peers, which are not modelled (no DNS): they match nothing`,
          });
    }
  const dstPod = conn.dst.kind === "pod" ? conn.dst.pod : undefined;
  if (dstPod !== undefined) {
    const seen = new Map<string, number>();
    for (const cp2 of dstPod.containerPorts)
      if (cp2.name !== undefined) {
        const k = `${cp2.name}/${cp2.protocol}`;
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
    for (const [k, n] of seen)
      if (n > 1)
        choices.push({
          kind: "duplicate-port-name",
          message: `${dstPod.id} declares port name ${k} ${n} times: a named port matches any of them`,
        });
  }
  void opts;
}

/** Evaluates one connection and records why. */
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
    return { ...head, allowed: true, egress: d("Egress"), ingress: d("Ingress"), choices };
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
  return { ...head, allowed: egress.allowed && ingress.allowed, egress, ingress, choices };
}
