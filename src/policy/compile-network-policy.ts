/**
 * NetworkPolicy v1 -> matchers. Applies the API server's defaulting again (policyTypes: Ingress,
 * plus Egress iff egress rules exist; protocol TCP), so hand-built objects behave like stored ones.
 */
import type { ObjectRef } from "../model/issue.js";
import type { NetworkPolicy } from "../model/kinds.js";
import { cidrCovers, formatCIDR, type CIDR } from "../net/cidr.js";
import { isValidPort } from "../net/port.js";
import type {
  CompiledNetworkPolicy,
  Direction,
  NetworkPolicyPeer,
  NetworkPolicyRule,
  PolicyPort,
} from "./compiled.js";
import type { CompileContext, Path } from "./compile-context.js";
import type {
  NetworkPolicyPeer as V1Peer,
  NetworkPolicyPort as V1Port,
  NetworkPolicySpec,
} from "kubernetes-types/networking/v1.js";

export function compileNetworkPolicy(cx: CompileContext, np: NetworkPolicy): CompiledNetworkPolicy {
  const namespace = np.metadata?.namespace ?? "default";
  const name = np.metadata?.name ?? "";
  const ref: ObjectRef = { kind: "NetworkPolicy", namespace, name };
  const spec: NetworkPolicySpec = np.spec ?? { podSelector: {} };
  const declared = spec.policyTypes ?? [];
  const types: Direction[] =
    declared.length > 0
      ? declared.filter((t): t is Direction => t === "Ingress" || t === "Egress")
      : (spec.egress ?? []).length > 0
        ? ["Ingress", "Egress"]
        : ["Ingress"];
  for (const [i, t] of declared.entries())
    if (t !== "Ingress" && t !== "Egress")
      cx.issue(
        ref,
        ["spec", "policyTypes", i],
        `Unsupported value: "${t}": supported values: "Egress", "Ingress"`,
      );
  const ignoredDirections: Direction[] = [];
  if (!types.includes("Ingress") && (spec.ingress ?? []).length > 0)
    ignoredDirections.push("Ingress");
  if (!types.includes("Egress") && (spec.egress ?? []).length > 0) ignoredDirections.push("Egress");
  const rules = (dir: Direction): NetworkPolicyRule[] | undefined => {
    if (!types.includes(dir)) return undefined;
    const field = dir === "Ingress" ? "ingress" : "egress";
    const list = dir === "Ingress" ? (spec.ingress ?? []) : (spec.egress ?? []);
    return list.map((r, index) => {
      const peersRaw: readonly V1Peer[] | undefined =
        "from" in r ? (r as { from?: V1Peer[] }).from : (r as { to?: V1Peer[] }).to;
      const peerField = dir === "Ingress" ? "from" : "to";
      const peers =
        peersRaw === undefined || peersRaw.length === 0
          ? ("all" as const)
          : peersRaw.map((p, pi) =>
              npPeer(cx, ref, namespace, ["spec", field, index, peerField, pi], p, pi),
            );
      const ports =
        r.ports === undefined || r.ports.length === 0
          ? ("all" as const)
          : r.ports.map((p, pi) => npPort(cx, ref, ["spec", field, index, "ports", pi], p, pi));
      return { index, peers, ports };
    });
  };
  return {
    id: `${namespace}/${name}`,
    namespace,
    name,
    podSelector: cx.selector(ref, ["spec", "podSelector"], spec.podSelector ?? {}),
    ingress: rules("Ingress"),
    egress: rules("Egress"),
    ignoredDirections,
  };
}

function npPeer(
  cx: CompileContext,
  ref: ObjectRef,
  namespace: string,
  path: Path,
  p: V1Peer,
  index: number,
): NetworkPolicyPeer {
  const hasPod = p.podSelector !== undefined && p.podSelector !== null;
  const hasNs = p.namespaceSelector !== undefined && p.namespaceSelector !== null;
  if (p.ipBlock !== undefined && p.ipBlock !== null) {
    if (hasPod || hasNs) {
      cx.issue(ref, path, "may not specify both ipBlock and another peer");
      return { kind: "empty", index };
    }
    const cidr = cx.cidr(ref, [...path, "ipBlock", "cidr"], p.ipBlock.cidr);
    const except: CIDR[] = [];
    for (const [i, e] of (p.ipBlock.except ?? []).entries()) {
      const c = cx.cidr(ref, [...path, "ipBlock", "except", i], e);
      if (c === undefined) continue;
      if (cidr !== undefined && !(cidrCovers(cidr, c) && c.prefix > cidr.prefix))
        cx.issue(
          ref,
          [...path, "ipBlock", "except", i],
          `Invalid value: "${e}": must be a strict subset of \`cidr\``,
        );
      except.push(c);
    }
    const text =
      (p.ipBlock.cidr ?? "") +
      (except.length > 0 ? ` except ${except.map(formatCIDR).join(", ")}` : "");
    return { kind: "ipBlock", index, cidr, except, text };
  }
  if (!hasPod && !hasNs) {
    cx.issue(ref, path, "must specify a peer");
    return { kind: "empty", index };
  }
  return {
    kind: "pods",
    index,
    namespaces: hasNs
      ? {
          kind: "selector",
          selector: cx.selector(ref, [...path, "namespaceSelector"], p.namespaceSelector),
        }
      : { kind: "policy-namespace", namespace },
    pods: cx.selector(ref, [...path, "podSelector"], p.podSelector ?? {}),
  };
}

function npPort(
  cx: CompileContext,
  ref: ObjectRef,
  path: Path,
  p: V1Port,
  index: number,
): PolicyPort {
  const protocol = cx.protocol(ref, [...path, "protocol"], p.protocol);
  if (p.port === undefined || p.port === null) {
    if (p.endPort !== undefined)
      cx.issue(ref, [...path, "endPort"], "may not be specified when `port` is not specified");
    return { kind: "protocol", index, protocol };
  }
  if (typeof p.port === "string") {
    if (p.endPort !== undefined)
      cx.issue(ref, [...path, "endPort"], "may not be specified when `port` is non-numeric");
    return { kind: "named", index, protocol, name: p.port };
  }
  if (!isValidPort(p.port))
    cx.issue(
      ref,
      [...path, "port"],
      `Invalid value: ${String(p.port)}: must be between 1 and 65535, inclusive`,
    );
  const to = p.endPort ?? p.port;
  if (to < p.port) cx.issue(ref, [...path, "endPort"], "must be greater than or equal to `port`");
  return { kind: "range", index, protocol, from: p.port, to };
}
