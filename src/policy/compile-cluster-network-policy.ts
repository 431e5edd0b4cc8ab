/**
 * ClusterNetworkPolicy v1alpha2 -> the matchers ANP/BANP compile to (compiled.ts), so that both
 * API versions share one evaluator: `tier` becomes the level (Admin/Baseline), `protocols`
 * entries become port matchers with their own protocol (no default), and `Accept` keeps its name
 * for explanations (`isAccept`). Fail closed (spec §2.4, O7): a peer or protocol entry with no
 * known field makes an Accept rule match nothing and a Deny/Pass rule match everything.
 */
import type { ObjectRef } from "../model/issue.js";
import type {
  ClusterNetworkPolicy,
  ClusterNetworkPolicyEgressPeer,
  ClusterNetworkPolicyProtocol,
} from "../model/kinds.js";
import { ingressPeerFields } from "../model/validation/cluster-network-policy.js";
import { isValidPort, type Protocol } from "../net/port.js";
import { compileSelector } from "./label-selector.js";
import { adminPeer } from "./compile-admin-policy.js";
import type { CompileContext, Path } from "./compile-context.js";
import type {
  AdminAction,
  AdminPort,
  AdminRule,
  CompiledAdminPolicy,
  Direction,
} from "./compiled.js";

const PROTOCOL_KEYS = [
  ["tcp", "TCP"],
  ["udp", "UDP"],
  ["sctp", "SCTP"],
] as const satisfies readonly (readonly [keyof ClusterNetworkPolicyProtocol, Protocol])[];

function protocolEntry(
  cx: CompileContext,
  ref: ObjectRef,
  path: Path,
  e: ClusterNetworkPolicyProtocol,
  index: number,
  action: AdminAction,
): AdminPort {
  for (const [key, protocol] of PROTOCOL_KEYS) {
    const pp = e[key];
    if (typeof pp !== "object" || pp === null) continue;
    const dp = pp.destinationPort;
    if (dp?.number !== undefined) {
      if (!isValidPort(dp.number))
        cx.issue(ref, [...path, key, "destinationPort", "number"], "must be 1..65535");
      return { kind: "range", index, protocol, from: dp.number, to: dp.number };
    }
    if (dp?.range !== undefined) {
      if (!(dp.range.start < dp.range.end))
        cx.issue(
          ref,
          [...path, key, "destinationPort", "range"],
          "Start port must be less than End port",
        );
      return { kind: "range", index, protocol, from: dp.range.start, to: dp.range.end };
    }
    cx.issue(ref, [...path, key], "destinationPort is required (the CRD rejects an empty object)");
    return { kind: "invalid", index };
  }
  if (e.destinationNamedPort !== undefined)
    return { kind: "named", index, name: e.destinationNamedPort };
  cx.issue(ref, path, "no known protocol field: fails closed");
  return action === "Accept" ? { kind: "invalid", index } : { kind: "any", index };
}

interface AnyRule {
  readonly name?: string;
  readonly action: string;
  readonly peers: readonly ClusterNetworkPolicyEgressPeer[];
  readonly protocols?: readonly ClusterNetworkPolicyProtocol[];
}

function compileRules(
  cx: CompileContext,
  ref: ObjectRef,
  dir: Direction,
  list: readonly AnyRule[],
): AdminRule[] {
  const field = dir === "Ingress" ? "ingress" : "egress";
  const peerField = dir === "Ingress" ? "from" : "to";
  return list.map((r, index) => {
    let action: AdminAction = "Deny";
    if (r.action === "Accept" || r.action === "Deny" || r.action === "Pass") action = r.action;
    else
      cx.issue(
        ref,
        ["spec", field, index, "action"],
        `Unsupported value: "${r.action}": supported values: "Accept", "Deny", "Pass"`,
      );
    if (r.peers.length === 0)
      cx.issue(ref, ["spec", field, index, peerField], "must have at least 1 item");
    const peers = r.peers.map((p, pi) =>
      adminPeer(cx, ref, ["spec", field, index, peerField, pi], p, pi, "accept"),
    );
    const ports =
      r.protocols === undefined
        ? ("all" as const)
        : r.protocols.map((p, pi) =>
            protocolEntry(cx, ref, ["spec", field, index, "protocols", pi], p, pi, action),
          );
    return { index, name: r.name, action, peers, ports };
  });
}

export function compileClusterNetworkPolicy(
  cx: CompileContext,
  cnp: ClusterNetworkPolicy,
): CompiledAdminPolicy {
  const name = cnp.metadata?.name ?? "";
  const ref: ObjectRef = { kind: "ClusterNetworkPolicy", name };
  const spec = cnp.spec;
  const s = spec.subject;
  let subject: CompiledAdminPolicy["subject"];
  if (s.pods !== undefined && s.namespaces === undefined)
    subject = {
      kind: "pods",
      namespaces: cx.selector(
        ref,
        ["spec", "subject", "pods", "namespaceSelector"],
        s.pods.namespaceSelector ?? {},
      ),
      pods: cx.selector(ref, ["spec", "subject", "pods", "podSelector"], s.pods.podSelector ?? {}),
    };
  else if (s.namespaces !== undefined && s.pods === undefined)
    subject = {
      kind: "namespaces",
      namespaces: cx.selector(ref, ["spec", "subject", "namespaces"], s.namespaces),
    };
  else {
    cx.issue(ref, ["spec", "subject"], "exactly one of namespaces or pods must be set");
    subject = {
      kind: "namespaces",
      namespaces: compileSelector({ matchExpressions: [{ key: "x", operator: "Never" }] }),
    };
  }
  let level: CompiledAdminPolicy["level"] = "Admin";
  if (spec.tier === "Baseline") level = "Baseline";
  else if (spec.tier !== "Admin")
    cx.issue(
      ref,
      ["spec", "tier"],
      `Unsupported value: "${String(spec.tier)}": supported values: "Admin", "Baseline"`,
    );
  return {
    tier: "ClusterNetworkPolicy",
    level,
    name,
    priority: spec.priority,
    subject,
    ingress: compileRules(
      cx,
      ref,
      "Ingress",
      // Only namespaces/pods exist on ingress peers (the API server prunes anything else).
      (spec.ingress ?? []).map((r) => ({
        ...r,
        peers: (r.from ?? []).map(ingressPeerFields),
      })),
    ),
    egress: compileRules(
      cx,
      ref,
      "Egress",
      (spec.egress ?? []).map((r) => ({ ...r, peers: r.to ?? [] })),
    ),
  };
}
