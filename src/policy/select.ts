/** Which policies select a pod, per direction and tier. */
import type {
  CompiledAdminPolicy,
  CompiledNetworkPolicy,
  CompiledPolicies,
  Direction,
} from "./compiled.js";
import { isAdminPolicyPod, isNetworkPolicyPod } from "./connection.js";
import type { PodFacts } from "./facts.js";
import type { PolicyOptions } from "./options.js";

export interface SubjectPolicies {
  /** ANPs selecting the pod with rules for the direction, in evaluation order. */
  readonly admin: readonly CompiledAdminPolicy[];
  /** NetworkPolicies of the pod's namespace selecting it with the direction in policyTypes. */
  readonly network: readonly CompiledNetworkPolicy[];
  /** BANPs selecting the pod with rules for the direction. */
  readonly baseline: readonly CompiledAdminPolicy[];
}

export function adminSelects(p: CompiledAdminPolicy, pod: PodFacts): boolean {
  if (!isAdminPolicyPod(pod)) return false;
  const s = p.subject;
  return s.kind === "namespaces"
    ? s.namespaces.matches(pod.nsLabels)
    : s.namespaces.matches(pod.nsLabels) && s.pods.matches(pod.labels);
}

export function networkPolicySelects(
  p: CompiledNetworkPolicy,
  pod: PodFacts,
  opts: PolicyOptions,
): boolean {
  return (
    isNetworkPolicyPod(pod, opts) &&
    p.namespace === pod.namespace &&
    p.podSelector.matches(pod.labels)
  );
}

export function rulesFor<T>(p: { readonly ingress: T; readonly egress: T }, dir: Direction): T {
  return dir === "Ingress" ? p.ingress : p.egress;
}

export function selectPolicies(
  cp: CompiledPolicies,
  opts: PolicyOptions,
  dir: Direction,
  pod: PodFacts,
): SubjectPolicies {
  const admin = cp.adminPolicies.filter((p) => rulesFor(p, dir).length > 0 && adminSelects(p, pod));
  const network = (cp.networkPolicies.get(pod.namespace) ?? []).filter(
    (p) => rulesFor(p, dir) !== undefined && networkPolicySelects(p, pod, opts),
  );
  const baseline = cp.baselinePolicies.filter(
    (p) => rulesFor(p, dir).length > 0 && adminSelects(p, pod),
  );
  return { admin, network, baseline };
}

/**
 * A pod reaching its own pod IP is not subject to ClusterNetworkPolicy (site-src hairpin rule,
 * spec cluster-network-policy.md §3.5): the selection without CNPs. v1alpha1 ANP/BANP stay.
 */
export function withoutClusterNetworkPolicies(sel: SubjectPolicies): SubjectPolicies {
  const keep = (p: CompiledAdminPolicy): boolean => p.tier !== "ClusterNetworkPolicy";
  return {
    admin: sel.admin.filter(keep),
    network: sel.network,
    baseline: sel.baseline.filter(keep),
  };
}
