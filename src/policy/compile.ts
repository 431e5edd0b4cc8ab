/**
 * Compiles a cluster's NetworkPolicies, AdminNetworkPolicies, BaselineAdminNetworkPolicies and
 * ClusterNetworkPolicies into matchers (compile-network-policy.ts, compile-admin-policy.ts,
 * compile-cluster-network-policy.ts). What the API server would reject is reported as issues
 * instead of failing: such peers and ports match nothing (Allow/Accept) or everything (Deny/Pass
 * "fail closed").
 *
 * Tiers (spec cluster-network-policy.md §3, decisions in docs/policy.md): ANPs join the Admin
 * tier and the BANP the Baseline tier. Admin: by priority, at equal priority a CNP before an ANP
 * (the current API first), then by name. Baseline: CNPs by (priority, name), then the BANP, which
 * has no priority and was the last resort before default allow.
 */
import type { Cluster } from "../model/cluster.js";
import { clusterFacts } from "./facts.js";
import type { CompiledAdminPolicy, CompiledNetworkPolicy, CompiledPolicies } from "./compiled.js";
import { CompileContext } from "./compile-context.js";
import { compileNetworkPolicy } from "./compile-network-policy.js";
import { compileAdminPolicy } from "./compile-admin-policy.js";
import { compileClusterNetworkPolicy } from "./compile-cluster-network-policy.js";
import type { DnsMap } from "./dns-map.js";

const byName = (a: CompiledAdminPolicy, b: CompiledAdminPolicy): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** CNP (v1alpha2) before ANP (v1alpha1) at equal priority. */
const apiRank = (a: CompiledAdminPolicy): number => (a.tier === "ClusterNetworkPolicy" ? 0 : 1);

/** Evaluation order inside one tier. */
export function tierOrder(a: CompiledAdminPolicy, b: CompiledAdminPolicy): number {
  const pa = a.priority ?? Number.POSITIVE_INFINITY;
  const pb = b.priority ?? Number.POSITIVE_INFINITY;
  if (pa !== pb) return pa < pb ? -1 : 1;
  return apiRank(a) - apiRank(b) || byName(a, b);
}

/** Compiles every policy of the cluster. Pure; `compilePolicies` below memoizes per snapshot. */
export function compilePoliciesUncached(cluster: Cluster, dnsMap?: DnsMap): CompiledPolicies {
  const facts = clusterFacts(cluster);
  const c = new CompileContext(facts, dnsMap);
  const all = cluster.networkPolicies.map((np) => compileNetworkPolicy(c, np));
  const networkPolicies = new Map<string, CompiledNetworkPolicy[]>();
  for (const np of all) {
    const list = networkPolicies.get(np.namespace);
    if (list === undefined) networkPolicies.set(np.namespace, [np]);
    else list.push(np);
  }
  const cnps = (cluster.clusterNetworkPolicies ?? []).map((p) => compileClusterNetworkPolicy(c, p));
  const adminPolicies = [
    ...cluster.adminNetworkPolicies.map((p) =>
      compileAdminPolicy(c, "AdminNetworkPolicy", p.metadata?.name ?? "", p.spec.priority, p.spec),
    ),
    ...cnps.filter((p) => p.level === "Admin"),
  ].sort(tierOrder);
  const baselinePolicies = [
    ...cnps.filter((p) => p.level === "Baseline"),
    ...cluster.baselineAdminNetworkPolicies.map((p) =>
      compileAdminPolicy(
        c,
        "BaselineAdminNetworkPolicy",
        p.metadata?.name ?? "",
        undefined,
        p.spec,
      ),
    ),
  ].sort(tierOrder);
  const undecidable = [...adminPolicies, ...baselinePolicies].some((p) =>
    [...p.ingress, ...p.egress].some((r) =>
      r.peers.some((x) => x.kind === "domainNames" && x.addresses === undefined),
    ),
  );
  return {
    facts,
    networkPolicies,
    allNetworkPolicies: all,
    adminPolicies,
    baselinePolicies,
    cidrs: [...c.cidrs.values()],
    issues: c.issues,
    undecidable,
  };
}

const cache = new WeakMap<Cluster, CompiledPolicies>();
const cacheWithDns = new WeakMap<Cluster, WeakMap<DnsMap, CompiledPolicies>>();

/** Compiles once per (immutable) cluster snapshot and DNS map. */
export function compilePolicies(cluster: Cluster, dnsMap?: DnsMap): CompiledPolicies {
  if (dnsMap !== undefined) {
    let perMap = cacheWithDns.get(cluster);
    if (perMap === undefined) cacheWithDns.set(cluster, (perMap = new WeakMap()));
    let compiled = perMap.get(dnsMap);
    if (compiled === undefined)
      perMap.set(dnsMap, (compiled = compilePoliciesUncached(cluster, dnsMap)));
    return compiled;
  }
  let compiled = cache.get(cluster);
  if (compiled === undefined) {
    compiled = compilePoliciesUncached(cluster);
    cache.set(cluster, compiled);
  }
  return compiled;
}
