/**
 * Compiles a cluster's NetworkPolicies, AdminNetworkPolicies and BaselineAdminNetworkPolicies
 * into matchers (compile-network-policy.ts, compile-admin-policy.ts). What the API server would
 * reject is reported as issues instead of failing: such peers and ports match nothing (Allow) or
 * everything (ANP Deny/Pass "fail closed").
 */
import type { Cluster } from "../model/cluster.js";
import { clusterFacts } from "./facts.js";
import type { CompiledAdminPolicy, CompiledNetworkPolicy, CompiledPolicies } from "./compiled.js";
import { CompileContext } from "./compile-context.js";
import { compileNetworkPolicy } from "./compile-network-policy.js";
import { compileAdminPolicy } from "./compile-admin-policy.js";

/** Compiles every policy of the cluster. Pure; `compilePolicies` below memoizes per snapshot. */
export function compilePoliciesUncached(cluster: Cluster): CompiledPolicies {
  const facts = clusterFacts(cluster);
  const c = new CompileContext(facts);
  const all = cluster.networkPolicies.map((np) => compileNetworkPolicy(c, np));
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
      compileAdminPolicy(c, "AdminNetworkPolicy", p.metadata?.name ?? "", p.spec.priority, p.spec),
    )
    .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0) || byName(a, b));
  const baselinePolicies = cluster.baselineAdminNetworkPolicies
    .map((p) =>
      compileAdminPolicy(
        c,
        "BaselineAdminNetworkPolicy",
        p.metadata?.name ?? "",
        undefined,
        p.spec,
      ),
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
