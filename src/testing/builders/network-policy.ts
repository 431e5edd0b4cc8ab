/**
 * `networkPolicy("ns/name", {podSelector, ingress, egress, policyTypes})`: a
 * networking.k8s.io/v1 NetworkPolicy. `podSelector` defaults to `{}` (every pod of the
 * namespace); `policyTypes` is defaulted by cluster() as the API server does.
 */
import type { NetworkPolicy } from "../../model/kinds.js";
import { defined, splitName } from "./names.js";

type Spec = NonNullable<NetworkPolicy["spec"]>;

export type NetworkPolicyOptions = Partial<Spec> & {
  readonly labels?: Readonly<Record<string, string>>;
};

export function networkPolicy(ref: string, options: NetworkPolicyOptions = {}): NetworkPolicy {
  const { namespace, name } = splitName(ref);
  const { labels, ...spec } = options;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: defined({ name, namespace, labels: labels ? { ...labels } : undefined }),
    spec: defined({ ...spec, podSelector: spec.podSelector ?? {} }),
  };
}
