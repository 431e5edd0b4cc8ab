/**
 * `namespace(constraints)`: a v1 Namespace named from a small vocabulary (so pods, services and
 * policies of one cluster meet in the same namespaces) with edge-case names (one letter, 63
 * characters, digits and dashes) and `team` labels from the policy vocabulary.
 */
import fc from "fast-check";
import type { Namespace } from "../../model/kinds.js";
import { labelsFrom, NAMESPACE_LABELS } from "./policyLabelSelector.js";

export interface NamespaceConstraints {
  /** Names to draw from; default x, y, z plus edge names. */
  readonly names?: readonly string[];
}

/** DNS-1123 labels at the edges of what the API server accepts. */
export const EDGE_NAMESPACE_NAMES: readonly string[] = [
  "a",
  "0",
  "kube-system",
  "sctp-9-9",
  `n${"0123456789".repeat(6)}zz`, // 63 characters
];

export function namespaceNamed(name: string): fc.Arbitrary<Namespace> {
  return labelsFrom(NAMESPACE_LABELS).map((labels): Namespace => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { ...labels, "kubernetes.io/metadata.name": name } },
  }));
}

export function namespace(c: NamespaceConstraints = {}): fc.Arbitrary<Namespace> {
  const names = c.names ?? ["x", "y", "z", ...EDGE_NAMESPACE_NAMES];
  return fc.constantFrom(...names).chain(namespaceNamed);
}
