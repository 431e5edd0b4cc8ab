/**
 * `lintPolicies`: things the API server accepts but that are almost always mistakes (spec §1.10
 * "not rejected", §4.1). Judged against the cluster's pods: "selects nothing" and "shadowed" mean
 * "in this cluster", not for every possible pod.
 */
import type { Cluster } from "../model/cluster.js";
import type { ObjectRef } from "../model/issue.js";
import { cidrContains, cidrCovers, formatCIDR, type CIDR } from "../net/cidr.js";
import { parseIP } from "../net/address.js";
import {
  isAccept,
  type AdminPeer,
  type AdminPort,
  type AdminRule,
  type CompiledAdminPolicy,
  type CompiledNetworkPolicy,
  type CompiledPolicies,
  type Direction,
  type NetworkPolicyPeer,
} from "./compiled.js";
import { isAdminPolicyPod, isNetworkPolicyPod } from "./connection.js";
import { toCompiled } from "./evaluate.js";
import type { PodFacts } from "./facts.js";
import { completeOptions, type PolicyOptions } from "./options.js";
import { adminSelects, networkPolicySelects } from "./select.js";
import type { Protocol } from "../net/port.js";

export type LintCode =
  | "unserved-named-port"
  | "equal-anp-priority"
  | "equal-cnp-priority"
  | "api-tie"
  | "banp-after-baseline-cnps"
  | "domain-names"
  | "selects-nothing"
  | "ip-block-covers-pods"
  | "shadowed-anp-rule"
  | "ignored-direction"
  | "invalid-field";

export interface PolicyLintWarning {
  readonly code: LintCode;
  readonly object: ObjectRef;
  readonly path: readonly (string | number)[];
  readonly message: string;
}

function npRef(p: CompiledNetworkPolicy): ObjectRef {
  return { kind: "NetworkPolicy", namespace: p.namespace, name: p.name };
}
function adminRef(p: CompiledAdminPolicy): ObjectRef {
  return { kind: p.tier, name: p.name };
}
const field = (d: Direction): string => (d === "Ingress" ? "ingress" : "egress");
const peerField = (d: Direction): string => (d === "Ingress" ? "from" : "to");

function npPeerPods(
  cp: CompiledPolicies,
  np: CompiledNetworkPolicy,
  peers: readonly NetworkPolicyPeer[] | "all",
  opts: PolicyOptions,
): PodFacts[] {
  return cp.facts.pods.filter((pod) => {
    if (!isNetworkPolicyPod(pod, opts)) return false;
    if (peers === "all") return true;
    return peers.some((peer) => {
      if (peer.kind === "pods") {
        const nsOk =
          peer.namespaces.kind === "policy-namespace"
            ? pod.namespace === np.namespace
            : peer.namespaces.selector.matches(pod.nsLabels);
        return nsOk && peer.pods.matches(pod.labels);
      }
      if (peer.kind === "ipBlock" && peer.cidr !== undefined) {
        const c = peer.cidr;
        return pod.ips.some(
          (ip) => cidrContains(c, ip) && !peer.except.some((e) => cidrContains(e, ip)),
        );
      }
      return false;
    });
  });
}

function adminPeerPods(cp: CompiledPolicies, peers: readonly AdminPeer[]): PodFacts[] {
  return cp.facts.pods.filter(
    (pod) =>
      isAdminPolicyPod(pod) &&
      peers.some(
        (p) =>
          (p.kind === "namespaces" && p.namespaces.matches(pod.nsLabels)) ||
          (p.kind === "pods" && p.namespaces.matches(pod.nsLabels) && p.pods.matches(pod.labels)) ||
          (p.kind === "networks" && pod.ips.some((ip) => p.cidrs.some((c) => cidrContains(c, ip)))),
      ),
  );
}

function declares(
  pods: readonly PodFacts[],
  name: string,
  protocol: Protocol | undefined,
): boolean {
  return pods.some((p) =>
    p.containerPorts.some(
      (c) => c.name === name && (protocol === undefined || c.protocol === protocol),
    ),
  );
}

/** Does port list `outer` match every (port, protocol) that `inner` matches? */
function portsCover(
  outer: readonly AdminPort[] | "all",
  inner: readonly AdminPort[] | "all",
): boolean {
  if (outer === "all") return true;
  if (inner === "all") return false;
  if (outer.some((o) => o.kind === "any")) return true;
  return inner.every((q) => {
    if (q.kind === "invalid") return true;
    return outer.some((o) => {
      if (o.kind === "range" && q.kind === "range")
        return o.protocol === q.protocol && o.from <= q.from && o.to >= q.to;
      if (o.kind === "named" && q.kind === "named") return o.name === q.name;
      return false;
    });
  });
}

/** Does rule `e` (an earlier rule) match every connection that rule `r` matches, in this cluster? */
function ruleCovers(
  cp: CompiledPolicies,
  e: AdminRule,
  r: AdminRule,
  subjectsR: readonly PodFacts[],
  ep: CompiledAdminPolicy,
): boolean {
  if (!subjectsR.every((s) => adminSelects(ep, s))) return false;
  if (!portsCover(e.ports, r.ports)) return false;
  if (e.peers.some((p) => p.kind === "unknown") && !isAccept(e.action)) return true;
  const ePods = new Set(adminPeerPods(cp, e.peers));
  if (!adminPeerPods(cp, r.peers).every((p) => ePods.has(p))) return false;
  // Address peers of r must be covered by address peers of e.
  for (const p of r.peers) {
    if (p.kind === "networks") {
      const ok = p.cidrs.every((c) =>
        e.peers.some((q) => q.kind === "networks" && q.cidrs.some((d) => cidrCovers(d, c))),
      );
      if (!ok) return false;
    } else if (p.kind === "nodes") {
      const ok = [...p.addresses].every((a) =>
        e.peers.some(
          (q) =>
            (q.kind === "nodes" && q.addresses.has(a)) ||
            (q.kind === "networks" && q.cidrs.some((d) => containsText(d, a))),
        ),
      );
      if (!ok) return false;
    } else if (p.kind === "domainNames" || (p.kind === "unknown" && !isAccept(r.action)))
      return false;
  }
  return true;
}

function containsText(c: CIDR, text: string): boolean {
  const ip = parseIP(text, "lenient");
  return ip !== undefined && cidrContains(c, ip);
}

export function lintPolicies(
  cluster: Cluster | CompiledPolicies,
  options?: Partial<PolicyOptions>,
): PolicyLintWarning[] {
  const cp = toCompiled(cluster, options);
  const opts = completeOptions(options);
  const out: PolicyLintWarning[] = [];
  const pods = cp.facts.pods;
  for (const i of cp.issues)
    if (i.object !== undefined)
      out.push({ code: "invalid-field", object: i.object, path: i.path, message: i.message });

  for (const np of cp.allNetworkPolicies) {
    const ref = npRef(np);
    const selected = pods.filter((p) => networkPolicySelects(np, p, opts));
    if (selected.length === 0)
      out.push({
        code: "selects-nothing",
        object: ref,
        path: ["spec", "podSelector"],
        message: `podSelector {${np.podSelector.text}} selects no pod in namespace ${np.namespace}`,
      });
    for (const d of np.ignoredDirections)
      out.push({
        code: "ignored-direction",
        object: ref,
        path: ["spec", field(d)],
        message: `${field(d)} rules are ignored: policyTypes does not list ${d}`,
      });
    for (const dir of ["Ingress", "Egress"] as const) {
      const rules = dir === "Ingress" ? np.ingress : np.egress;
      for (const r of rules ?? []) {
        if (r.peers !== "all")
          for (const peer of r.peers)
            if (peer.kind === "ipBlock" && peer.cidr !== undefined) {
              const c = peer.cidr;
              const inside = pods.filter(
                (p) =>
                  isNetworkPolicyPod(p, opts) &&
                  p.ips.some(
                    (ip) => cidrContains(c, ip) && !peer.except.some((e) => cidrContains(e, ip)),
                  ),
              );
              if (inside.length > 0)
                out.push({
                  code: "ip-block-covers-pods",
                  object: ref,
                  path: ["spec", field(dir), r.index, peerField(dir), peer.index, "ipBlock"],
                  message: `ipBlock ${formatCIDR(c)} covers the IPs of ${inside.length} pod(s) (e.g. ${inside[0]?.id ?? ""}); pod IPs are ephemeral, prefer pod/namespace selectors`,
                });
            }
        if (r.ports === "all") continue;
        const dests = dir === "Ingress" ? selected : npPeerPods(cp, np, r.peers, opts);
        for (const p of r.ports)
          if (p.kind === "named" && !declares(dests, p.name, p.protocol))
            out.push({
              code: "unserved-named-port",
              object: ref,
              path: ["spec", field(dir), r.index, "ports", p.index],
              message: declares(dests, p.name, undefined)
                ? `named port "${p.name}" is declared by destination pods only for another protocol than ${p.protocol}: it matches nothing`
                : `no destination pod declares a port named "${p.name}" for ${p.protocol}: it matches nothing`,
            });
      }
    }
  }

  // Equal priorities inside a tier (spec cluster-network-policy.md §3.3): order undefined upstream.
  for (const tier of [cp.adminPolicies, cp.baselinePolicies]) {
    const byPriority = new Map<number, CompiledAdminPolicy[]>();
    for (const a of tier) {
      if (a.priority === undefined) continue;
      const list = byPriority.get(a.priority) ?? [];
      list.push(a);
      byPriority.set(a.priority, list);
    }
    for (const [prio, list] of byPriority)
      if (list.length > 1)
        for (const a of list) {
          const others = list.filter((b) => b !== a);
          const mixed = others.some((b) => b.tier !== a.tier);
          out.push({
            code: mixed
              ? "api-tie"
              : a.tier === "ClusterNetworkPolicy"
                ? "equal-cnp-priority"
                : "equal-anp-priority",
            object: adminRef(a),
            path: ["spec", "priority"],
            message: mixed
              ? `${a.level} priority ${prio} is shared with ${others.map((b) => `${b.tier} ${b.name}`).join(", ")}: the order between the API versions is undefined; kube-netsim checks ClusterNetworkPolicies first, then by name`
              : `priority ${prio} is shared with ${others.map((b) => b.name).join(", ")}: their relative order is undefined`,
          });
        }
  }
  const banps = cp.baselinePolicies.filter((p) => p.tier === "BaselineAdminNetworkPolicy");
  const baselineCnps = cp.baselinePolicies.filter((p) => p.tier === "ClusterNetworkPolicy");
  if (banps.length > 0 && baselineCnps.length > 0)
    for (const b of banps)
      out.push({
        code: "banp-after-baseline-cnps",
        object: adminRef(b),
        path: [],
        message: `BaselineAdminNetworkPolicy and Baseline-tier ClusterNetworkPolicies (${baselineCnps.map((p) => p.name).join(", ")}) coexist: upstream defines no order; kube-netsim checks the BANP after every Baseline CNP (convert it: policy convert --to v1alpha2)`,
      });

  for (const a of [...cp.adminPolicies, ...cp.baselinePolicies]) {
    const ref = adminRef(a);
    const subjects = pods.filter((p) => adminSelects(a, p));
    if (subjects.length === 0)
      out.push({
        code: "selects-nothing",
        object: ref,
        path: ["spec", "subject"],
        message: "subject selects no pod",
      });
    for (const dir of ["Ingress", "Egress"] as const) {
      const rules = dir === "Ingress" ? a.ingress : a.egress;
      for (const r of rules) {
        for (const peer of r.peers)
          if (peer.kind === "networks") {
            const inside = pods.filter(
              (p) =>
                isAdminPolicyPod(p) &&
                p.ips.some((ip) => peer.cidrs.some((c) => cidrContains(c, ip))),
            );
            if (inside.length > 0)
              out.push({
                code: "ip-block-covers-pods",
                object: ref,
                path: ["spec", field(dir), r.index, peerField(dir), peer.index, "networks"],
                message: `networks ${peer.cidrs.map(formatCIDR).join(", ")} also match cluster-internal traffic of ${inside.length} pod(s) (e.g. ${inside[0]?.id ?? ""})`,
              });
          }
        for (const peer of r.peers)
          if (peer.kind === "domainNames") {
            const path = ["spec", field(dir), r.index, peerField(dir), peer.index, "domainNames"];
            if (peer.unresolved.length > 0)
              out.push({
                code: "domain-names",
                object: ref,
                path,
                message: `${peer.unresolved.join(", ")} cannot be resolved offline: verdicts that depend on this rule are "unknown" (give --dns-map)`,
              });
            if (!isAccept(r.action))
              out.push({
                code: "domain-names",
                object: ref,
                path,
                message: `domainNames are documented for Accept rules only; this rule is ${r.action}`,
              });
          }
        if (r.ports !== "all") {
          const dests = dir === "Ingress" ? subjects : adminPeerPods(cp, r.peers);
          const cnp = a.tier === "ClusterNetworkPolicy";
          for (const p of r.ports)
            if (p.kind === "named" && !declares(dests, p.name, undefined))
              out.push({
                code: "unserved-named-port",
                object: ref,
                path: cnp
                  ? ["spec", field(dir), r.index, "protocols", p.index, "destinationNamedPort"]
                  : ["spec", field(dir), r.index, "ports", p.index, "namedPort"],
                message: `no destination pod declares a port named "${p.name}": it matches nothing`,
              });
        }
      }
    }
  }

  // Shadowed rules: an earlier rule (same tier, evaluation order) matches everything this one does.
  for (const tier of [cp.adminPolicies, cp.baselinePolicies])
    for (const dir of ["Ingress", "Egress"] as const) {
      const ordered: { p: CompiledAdminPolicy; r: AdminRule }[] = [];
      for (const p of tier)
        for (const r of dir === "Ingress" ? p.ingress : p.egress) ordered.push({ p, r });
      ordered.forEach(({ p, r }, i) => {
        const subjects = pods.filter((s) => adminSelects(p, s));
        if (subjects.length === 0) return;
        const by = ordered.slice(0, i).find((e) => ruleCovers(cp, e.r, r, subjects, e.p));
        if (by !== undefined)
          out.push({
            code: "shadowed-anp-rule",
            object: adminRef(p),
            path: ["spec", field(dir), r.index],
            message: `rule ${field(dir)}[${r.index}]${r.name !== undefined ? ` "${r.name}"` : ""} never applies: ${by.p.name} ${field(dir)}[${by.r.index}]${by.r.name !== undefined ? ` "${by.r.name}"` : ""} (${by.r.action}) matches first`,
          });
      });
    }
  return out;
}
