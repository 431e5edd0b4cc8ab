/**
 * What the NetworkPolicy / AdminNetworkPolicy APIs leave to implementations (spec netpol.md §1.8),
 * as options. Every verdict that depended on one of these is flagged in its explanation.
 */

import type { DnsMap } from "./dns-map.js";

export interface PolicyOptions {
  /**
   * A pod talking to its own IP. `"allow"` (default): the docs say "a pod cannot block access to
   * itself" and upstream e2e ignores loopback. `"evaluate"`: judge it like any other connection.
   */
  readonly selfTraffic: "allow" | "evaluate";
  /**
   * hostNetwork pods. `"as-node"` (default, the "most common" behaviour the docs describe):
   * they are never NetworkPolicy subjects, pod/namespace selectors never match them, and their
   * traffic is node traffic (ipBlock sees the node IP). `"as-pod"`: NetworkPolicy treats them like
   * pod-network pods. AdminNetworkPolicy excludes host-networked pods either way (API text).
   */
  readonly hostNetwork: "as-node" | "as-pod";
  /**
   * Ingress from the destination pod's own node (kubelet probes; types.go: allowed "if the traffic
   * source is the pod's local node"). `"allow"` (default) or `"evaluate"`.
   */
  readonly localNodeIngress: "allow" | "evaluate";
  /**
   * Whether NetworkPolicy `ipBlock` matches pod IPs. `true` (default) is what the upstream e2e suite
   * requires; `false` is np-guard's reading ("ipBlock never selects a pod").
   */
  readonly ipBlockMatchesPods: boolean;
  /**
   * What DNS would answer for `domainNames` peers (`--dns-map`). Without it (or for names it
   * lacks) verdicts that depend on such peers are "unknown".
   */
  readonly dnsMap?: DnsMap;
}

export const DEFAULT_POLICY_OPTIONS: PolicyOptions = {
  selfTraffic: "allow",
  hostNetwork: "as-node",
  localNodeIngress: "allow",
  ipBlockMatchesPods: true,
};

export function completeOptions(opts: Partial<PolicyOptions> | undefined): PolicyOptions {
  return { ...DEFAULT_POLICY_OPTIONS, ...(opts ?? {}) };
}
