/** `namespace("name", {labels})`: a v1 Namespace (cluster() adds `kubernetes.io/metadata.name`). */
import type { Namespace } from "../../model/kinds.js";
import { defined } from "./names.js";

export interface NamespaceOptions {
  readonly labels?: Readonly<Record<string, string>>;
}

export function namespace(name: string, options: NamespaceOptions = {}): Namespace {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: defined({ name, labels: options.labels ? { ...options.labels } : undefined }),
  };
}
