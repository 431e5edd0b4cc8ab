/**
 * Compiles a cluster's NetworkPolicies, AdminNetworkPolicies and BaselineAdminNetworkPolicies.
 * Applies the API server's defaulting again (policyTypes, protocol TCP) so that objects built by
 * hand behave like stored ones, and reports what the API server would reject as issues instead of
 * failing: such peers and ports match nothing (Allow) or everything (ANP Deny/Pass "fail closed").
 */
import type { Cluster } from "../model/cluster.js";
import type { Issue, ObjectRef } from "../model/issue.js";
import type {
  AdminNetworkPolicyEgressPeer,
  AdminNetworkPolicyPort,
  LabelSelector,
  NetworkPolicy,
} from "../model/kinds.js";
import { parseCIDR, cidrCovers, formatCIDR, type CIDR } from "../net/cidr.js";
import { isValidPort, parseProtocol, type Protocol } from "../net/port.js";
import { compileSelector, type CompiledSelector } from "./label-selector.js";
import { clusterFacts, type ClusterFacts } from "./facts.js";
import type {
  AdminAction,
  AdminPeer,
  AdminPort,
  AdminRule,
  AdminTier,
  CompiledAdminPolicy,
  CompiledNetworkPolicy,
  CompiledPolicies,
  Direction,
  NetworkPolicyPeer,
  NetworkPolicyRule,
  PolicyPort,
} from "./compiled.js";
import type {
  NetworkPolicyPeer as V1Peer,
  NetworkPolicyPort as V1Port,
  NetworkPolicySpec,
} from "kubernetes-types/networking/v1.js";

type Path = readonly (string | number)[];

class Compiler {
  readonly issues: Issue[] = [];
  readonly cidrs = new Map<string, CIDR>();

  constructor(readonly facts: ClusterFacts) {}

  issue(
    object: ObjectRef,
    path: Path,
    message: string,
    severity: "error" | "warning" = "error",
  ): void {
    this.issues.push({ code: "invalid", severity, message, object, path });
  }

  selector(object: ObjectRef, path: Path, sel: LabelSelector | null | undefined): CompiledSelector {
    const c = compileSelector(sel);
    for (const p of c.problems) this.issue(object, path, p);
    return c;
  }

  cidr(object: ObjectRef, path: Path, text: string | undefined): CIDR | undefined {
    if (text === undefined || text === "") {
      this.issue(object, path, "Required value");
      return undefined;
    }
    const strict = parseCIDR(text, "strict");
    const c = strict ?? parseCIDR(text, "lenient");
    if (c === undefined) {
      this.issue(object, path, `Invalid value: "${text}": must be a valid CIDR value`);
      return undefined;
    }
    if (strict === undefined || c.address.value !== c.network.value)
      this.issue(
        object,
        path,
        `"${text}" is not in canonical form (strict CIDR validation would reject it); using ${formatCIDR(c)}`,
        "warning",
      );
    this.cidrs.set(formatCIDR(c), c);
    return c;
  }

  protocol(object: ObjectRef, path: Path, p: string | undefined): Protocol {
    if (p === undefined) return "TCP";
    const proto = p === "TCP" || p === "UDP" || p === "SCTP" ? p : undefined;
    if (proto === undefined) {
      this.issue(object, path, `Unsupported value: "${p}": supported values: "SCTP", "TCP", "UDP"`);
      return parseProtocol(p) ?? "TCP";
    }
    return proto;
  }

  networkPolicy(np: NetworkPolicy): CompiledNetworkPolicy {
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
        this.issue(
          ref,
          ["spec", "policyTypes", i],
          `Unsupported value: "${t}": supported values: "Egress", "Ingress"`,
        );
    const ignoredDirections: Direction[] = [];
    if (!types.includes("Ingress") && (spec.ingress ?? []).length > 0)
      ignoredDirections.push("Ingress");
    if (!types.includes("Egress") && (spec.egress ?? []).length > 0)
      ignoredDirections.push("Egress");
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
                this.npPeer(ref, namespace, ["spec", field, index, peerField, pi], p, pi),
              );
        const ports =
          r.ports === undefined || r.ports.length === 0
            ? ("all" as const)
            : r.ports.map((p, pi) => this.npPort(ref, ["spec", field, index, "ports", pi], p, pi));
        return { index, peers, ports };
      });
    };
    return {
      id: `${namespace}/${name}`,
      namespace,
      name,
      podSelector: this.selector(ref, ["spec", "podSelector"], spec.podSelector ?? {}),
      ingress: rules("Ingress"),
      egress: rules("Egress"),
      ignoredDirections,
    };
  }

  npPeer(
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
        this.issue(ref, path, "may not specify both ipBlock and another peer");
        return { kind: "empty", index };
      }
      const cidr = this.cidr(ref, [...path, "ipBlock", "cidr"], p.ipBlock.cidr);
      const except: CIDR[] = [];
      for (const [i, e] of (p.ipBlock.except ?? []).entries()) {
        const c = this.cidr(ref, [...path, "ipBlock", "except", i], e);
        if (c === undefined) continue;
        if (cidr !== undefined && !(cidrCovers(cidr, c) && c.prefix > cidr.prefix))
          this.issue(
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
      this.issue(ref, path, "must specify a peer");
      return { kind: "empty", index };
    }
    return {
      kind: "pods",
      index,
      namespaces: hasNs
        ? {
            kind: "selector",
            selector: this.selector(ref, [...path, "namespaceSelector"], p.namespaceSelector),
          }
        : { kind: "policy-namespace", namespace },
      pods: this.selector(ref, [...path, "podSelector"], p.podSelector ?? {}),
    };
  }

  npPort(ref: ObjectRef, path: Path, p: V1Port, index: number): PolicyPort {
    const protocol = this.protocol(ref, [...path, "protocol"], p.protocol);
    if (p.port === undefined || p.port === null) {
      if (p.endPort !== undefined)
        this.issue(ref, [...path, "endPort"], "may not be specified when `port` is not specified");
      return { kind: "protocol", index, protocol };
    }
    if (typeof p.port === "string") {
      if (p.endPort !== undefined)
        this.issue(ref, [...path, "endPort"], "may not be specified when `port` is non-numeric");
      return { kind: "named", index, protocol, name: p.port };
    }
    if (!isValidPort(p.port))
      this.issue(
        ref,
        [...path, "port"],
        `Invalid value: ${String(p.port)}: must be between 1 and 65535, inclusive`,
      );
    const to = p.endPort ?? p.port;
    if (to < p.port)
      this.issue(ref, [...path, "endPort"], "must be greater than or equal to `port`");
    return { kind: "range", index, protocol, from: p.port, to };
  }

  adminPolicy(
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
        this.issue(ref, ["spec", "subject"], "exactly one of namespaces or pods must be set");
      subject = {
        kind: "pods",
        namespaces: this.selector(
          ref,
          ["spec", "subject", "pods", "namespaceSelector"],
          s.pods.namespaceSelector ?? {},
        ),
        pods: this.selector(
          ref,
          ["spec", "subject", "pods", "podSelector"],
          s.pods.podSelector ?? {},
        ),
      };
    } else if (s.namespaces !== undefined) {
      subject = {
        kind: "namespaces",
        namespaces: this.selector(ref, ["spec", "subject", "namespaces"], s.namespaces),
      };
    } else {
      this.issue(ref, ["spec", "subject"], "exactly one of namespaces or pods must be set");
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
        const allowed =
          tier === "AdminNetworkPolicy" ? ["Allow", "Deny", "Pass"] : ["Allow", "Deny"];
        let action: AdminAction = "Deny";
        if (allowed.includes(r.action)) action = r.action as AdminAction;
        else
          this.issue(
            ref,
            ["spec", field, index, "action"],
            `Unsupported value: "${r.action}": supported values: ${allowed.map((a) => `"${a}"`).join(", ")}`,
          );
        const peers = r.peers.map((p, pi) =>
          this.adminPeer(ref, ["spec", field, index, peerField, pi], p, pi),
        );
        if (r.peers.length === 0)
          this.issue(ref, ["spec", field, index, peerField], "must have at least 1 item");
        const ports =
          r.ports === undefined
            ? ("all" as const)
            : r.ports.map((p, pi) =>
                this.adminPort(ref, ["spec", field, index, "ports", pi], p, pi),
              );
        return { index, name: r.name, action, peers, ports };
      });
    return {
      tier,
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

  adminPeer(ref: ObjectRef, path: Path, p: AdminNetworkPolicyEgressPeer, index: number): AdminPeer {
    const set = (["namespaces", "pods", "nodes", "networks", "domainNames"] as const).filter(
      (k) => p[k] !== undefined,
    );
    if (set.length > 1) this.issue(ref, path, `exactly one of ${set.join(", ")} may be set`);
    if (p.pods !== undefined)
      return {
        kind: "pods",
        index,
        namespaces: this.selector(
          ref,
          [...path, "pods", "namespaceSelector"],
          p.pods.namespaceSelector ?? {},
        ),
        pods: this.selector(ref, [...path, "pods", "podSelector"], p.pods.podSelector ?? {}),
      };
    if (p.namespaces !== undefined)
      return {
        kind: "namespaces",
        index,
        namespaces: this.selector(ref, [...path, "namespaces"], p.namespaces),
      };
    if (p.nodes !== undefined) {
      const nodes = this.selector(ref, [...path, "nodes"], p.nodes);
      const addresses = new Set<string>();
      for (const n of this.facts.nodes)
        if (nodes.matches(n.labels)) for (const a of n.addresses) addresses.add(a);
      return { kind: "nodes", index, nodes, addresses };
    }
    if (p.networks !== undefined) {
      const cidrs: CIDR[] = [];
      for (const [i, t] of p.networks.entries()) {
        const c = this.cidr(ref, [...path, "networks", i], t);
        if (c !== undefined) cidrs.push(c);
      }
      return { kind: "networks", index, cidrs };
    }
    if (p.domainNames !== undefined)
      return { kind: "domainNames", index, names: [...p.domainNames] };
    return { kind: "unknown", index };
  }

  adminPort(ref: ObjectRef, path: Path, p: AdminNetworkPolicyPort, index: number): AdminPort {
    if (p.portNumber !== undefined) {
      const port = p.portNumber.port;
      if (!isValidPort(port))
        this.issue(
          ref,
          [...path, "portNumber", "port"],
          `Invalid value: ${String(port)}: must be between 1 and 65535, inclusive`,
        );
      return {
        kind: "range",
        index,
        protocol: this.protocol(ref, [...path, "portNumber", "protocol"], p.portNumber.protocol),
        from: port,
        to: port,
      };
    }
    if (p.portRange !== undefined) {
      const r = p.portRange;
      if (r.end < r.start)
        this.issue(ref, [...path, "portRange"], "start must be less than or equal to end");
      return {
        kind: "range",
        index,
        protocol: this.protocol(ref, [...path, "portRange", "protocol"], r.protocol),
        from: r.start,
        to: r.end,
      };
    }
    if (p.namedPort !== undefined) return { kind: "named", index, name: p.namedPort };
    this.issue(ref, path, "exactly one of portNumber, namedPort or portRange must be set");
    return { kind: "invalid", index };
  }
}

/** Compiles every policy of the cluster. Pure; `compilePolicies` below memoizes per snapshot. */
export function compilePoliciesUncached(cluster: Cluster): CompiledPolicies {
  const facts = clusterFacts(cluster);
  const c = new Compiler(facts);
  const all = cluster.networkPolicies.map((np) => c.networkPolicy(np));
  const networkPolicies = new Map<string, CompiledNetworkPolicy[]>();
  for (const np of all) {
    const list = networkPolicies.get(np.namespace);
    if (list === undefined) networkPolicies.set(np.namespace, [np]);
    else list.push(np);
  }
  const byName = (a: CompiledAdminPolicy, b: CompiledAdminPolicy): number =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  const adminPolicies = cluster.adminNetworkPolicies
    .map((p) =>
      c.adminPolicy("AdminNetworkPolicy", p.metadata?.name ?? "", p.spec.priority, p.spec),
    )
    .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0) || byName(a, b));
  const baselinePolicies = cluster.baselineAdminNetworkPolicies
    .map((p) =>
      c.adminPolicy("BaselineAdminNetworkPolicy", p.metadata?.name ?? "", undefined, p.spec),
    )
    .sort(byName);
  return {
    facts,
    networkPolicies,
    allNetworkPolicies: all,
    adminPolicies,
    baselinePolicies,
    cidrs: [...c.cidrs.values()],
    issues: c.issues,
  };
}

const cache = new WeakMap<Cluster, CompiledPolicies>();

/** Compiles once per (immutable) cluster snapshot. */
export function compilePolicies(cluster: Cluster): CompiledPolicies {
  let compiled = cache.get(cluster);
  if (compiled === undefined) {
    compiled = compilePoliciesUncached(cluster);
    cache.set(cluster, compiled);
  }
  return compiled;
}
