/**
 * AdminNetworkPolicy / BaselineAdminNetworkPolicy v1alpha1 -> matchers. `nodes` peers are
 * resolved to the addresses of the selected nodes; a peer with no known field fails closed.
 */
import type { ObjectRef } from "../model/issue.js";
import type {
  AdminNetworkPolicyEgressPeer,
  AdminNetworkPolicyPort,
  LabelSelector,
} from "../model/kinds.js";
import type { CIDR } from "../net/cidr.js";
import { isValidPort } from "../net/port.js";
import { compileSelector } from "./label-selector.js";
import { resolveDomainNames } from "./dns-map.js";
import type {
  AdminAction,
  AdminPeer,
  AdminPort,
  AdminRule,
  AdminTier,
  CompiledAdminPolicy,
  Direction,
} from "./compiled.js";
import type { CompileContext, Path } from "./compile-context.js";

export function compileAdminPolicy(
  cx: CompileContext,
  tier: AdminTier,
  name: string,
  priority: number | undefined,
  spec: {
    subject: {
      namespaces?: LabelSelector;
      pods?: { namespaceSelector: LabelSelector; podSelector: LabelSelector };
    };
    ingress?: readonly {
      name?: string;
      action: string;
      from: readonly AdminNetworkPolicyEgressPeer[];
      ports?: readonly AdminNetworkPolicyPort[];
    }[];
    egress?: readonly {
      name?: string;
      action: string;
      to: readonly AdminNetworkPolicyEgressPeer[];
      ports?: readonly AdminNetworkPolicyPort[];
    }[];
  },
): CompiledAdminPolicy {
  const ref: ObjectRef = { kind: tier, name };
  const s = spec.subject;
  let subject: CompiledAdminPolicy["subject"];
  if (s.pods !== undefined) {
    if (s.namespaces !== undefined)
      cx.issue(ref, ["spec", "subject"], "exactly one of namespaces or pods must be set");
    subject = {
      kind: "pods",
      namespaces: cx.selector(
        ref,
        ["spec", "subject", "pods", "namespaceSelector"],
        s.pods.namespaceSelector ?? {},
      ),
      pods: cx.selector(ref, ["spec", "subject", "pods", "podSelector"], s.pods.podSelector ?? {}),
    };
  } else if (s.namespaces !== undefined) {
    subject = {
      kind: "namespaces",
      namespaces: cx.selector(ref, ["spec", "subject", "namespaces"], s.namespaces),
    };
  } else {
    cx.issue(ref, ["spec", "subject"], "exactly one of namespaces or pods must be set");
    subject = {
      kind: "namespaces",
      namespaces: compileSelector({ matchExpressions: [{ key: "x", operator: "Never" }] }),
    };
  }
  const rules = (
    dir: Direction,
    list: readonly {
      name?: string;
      action: string;
      peers: readonly AdminNetworkPolicyEgressPeer[];
      ports?: readonly AdminNetworkPolicyPort[];
    }[],
  ): AdminRule[] =>
    list.map((r, index) => {
      const field = dir === "Ingress" ? "ingress" : "egress";
      const peerField = dir === "Ingress" ? "from" : "to";
      const allowed = tier === "AdminNetworkPolicy" ? ["Allow", "Deny", "Pass"] : ["Allow", "Deny"];
      let action: AdminAction = "Deny";
      if (allowed.includes(r.action)) action = r.action as AdminAction;
      else
        cx.issue(
          ref,
          ["spec", field, index, "action"],
          `Unsupported value: "${r.action}": supported values: ${allowed.map((a) => `"${a}"`).join(", ")}`,
        );
      const peers = r.peers.map((p, pi) =>
        adminPeer(cx, ref, ["spec", field, index, peerField, pi], p, pi),
      );
      if (r.peers.length === 0)
        cx.issue(ref, ["spec", field, index, peerField], "must have at least 1 item");
      const ports =
        r.ports === undefined
          ? ("all" as const)
          : r.ports.map((p, pi) => adminPort(cx, ref, ["spec", field, index, "ports", pi], p, pi));
      return { index, name: r.name, action, peers, ports };
    });
  return {
    tier,
    level: tier === "AdminNetworkPolicy" ? "Admin" : "Baseline",
    name,
    priority,
    subject,
    ingress: rules(
      "Ingress",
      (spec.ingress ?? []).map((r) => ({ ...r, peers: r.from ?? [] })),
    ),
    egress: rules(
      "Egress",
      (spec.egress ?? []).map((r) => ({ ...r, peers: r.to ?? [] })),
    ),
  };
}

/** One peer of either API version (v1alpha2 only relaxes `pods.namespaceSelector`). */
export function adminPeer(
  cx: CompileContext,
  ref: ObjectRef,
  path: Path,
  p: Omit<AdminNetworkPolicyEgressPeer, "pods"> & {
    pods?: { namespaceSelector?: LabelSelector; podSelector: LabelSelector };
  },
  index: number,
  hostBits: "warn" | "accept" = "warn",
): AdminPeer {
  const set = (["namespaces", "pods", "nodes", "networks", "domainNames"] as const).filter(
    (k) => p[k] !== undefined,
  );
  if (set.length > 1) cx.issue(ref, path, `exactly one of ${set.join(", ")} may be set`);
  if (p.pods !== undefined)
    return {
      kind: "pods",
      index,
      namespaces: cx.selector(
        ref,
        [...path, "pods", "namespaceSelector"],
        p.pods.namespaceSelector ?? {},
      ),
      pods: cx.selector(ref, [...path, "pods", "podSelector"], p.pods.podSelector ?? {}),
    };
  if (p.namespaces !== undefined)
    return {
      kind: "namespaces",
      index,
      namespaces: cx.selector(ref, [...path, "namespaces"], p.namespaces),
    };
  if (p.nodes !== undefined) {
    const nodes = cx.selector(ref, [...path, "nodes"], p.nodes);
    const addresses = new Set<string>();
    for (const n of cx.facts.nodes)
      if (nodes.matches(n.labels)) for (const a of n.addresses) addresses.add(a);
    return { kind: "nodes", index, nodes, addresses };
  }
  if (p.networks !== undefined) {
    const cidrs: CIDR[] = [];
    for (const [i, t] of p.networks.entries()) {
      const c = cx.cidr(ref, [...path, "networks", i], t, hostBits);
      if (c !== undefined) cidrs.push(c);
    }
    return { kind: "networks", index, cidrs };
  }
  if (p.domainNames !== undefined) {
    const r = resolveDomainNames(cx.dnsMap, p.domainNames);
    return {
      kind: "domainNames",
      index,
      names: [...p.domainNames],
      addresses: r.addresses,
      unresolved: r.unresolved,
    };
  }
  return { kind: "unknown", index };
}

function adminPort(
  cx: CompileContext,
  ref: ObjectRef,
  path: Path,
  p: AdminNetworkPolicyPort,
  index: number,
): AdminPort {
  if (p.portNumber !== undefined) {
    const port = p.portNumber.port;
    if (!isValidPort(port))
      cx.issue(
        ref,
        [...path, "portNumber", "port"],
        `Invalid value: ${String(port)}: must be between 1 and 65535, inclusive`,
      );
    return {
      kind: "range",
      index,
      protocol: cx.protocol(ref, [...path, "portNumber", "protocol"], p.portNumber.protocol),
      from: port,
      to: port,
    };
  }
  if (p.portRange !== undefined) {
    const r = p.portRange;
    if (r.end < r.start)
      cx.issue(ref, [...path, "portRange"], "start must be less than or equal to end");
    return {
      kind: "range",
      index,
      protocol: cx.protocol(ref, [...path, "portRange", "protocol"], r.protocol),
      from: r.start,
      to: r.end,
    };
  }
  if (p.namedPort !== undefined) return { kind: "named", index, name: p.namedPort };
  cx.issue(ref, path, "exactly one of portNumber, namedPort or portRange must be set");
  return { kind: "invalid", index };
}
