/**
 * Which pods the report's heat maps show. A heat map has a cell per ordered pod pair and probe:
 * 300 pods with one declared port made a 33 MB page (3 protocols × 90,000 cells) in 9 s, and
 * the cells grow with the square of the pods. So the maps show at most `maxPods` pods
 * (DEFAULT_MAX_PODS; the first in the manifests' order, the order the maps list them in), say so
 * on the page, and let the caller name the pods it wants instead (bounded.ts). Each cell shown is
 * the verdict of the whole cluster's policies: leaving a pod out of the picture changes no other
 * pod's verdicts.
 */
import type { Cluster } from "../model/cluster.js";
import { bounded, missingNames, type Bounded } from "./bounded.js";

/** Pods shown when the caller names none and sets no other bound. */
export const DEFAULT_MAX_PODS = 100;

export interface PodSelectionOptions {
  /** Only these pods (`namespace/name`, each in the cluster), in the manifests' order. */
  readonly pods?: readonly string[];
  /** At most this many (the first in the manifests' order); `Infinity` for all. Default 100. */
  readonly maxPods?: number;
}

/** `namespace/name` of each pod, in the manifests' order (the policy matrix's pod ids). */
export function podKeys(cluster: Cluster): string[] {
  return cluster.pods.map((p) => `${p.metadata?.namespace ?? "default"}/${p.metadata?.name ?? ""}`);
}

/** The names in `names` that are not a pod of the cluster. */
export function unknownPods(cluster: Cluster, names: readonly string[]): string[] {
  return missingNames(podKeys(cluster), names);
}

/** The pods the heat maps show, and how many the cluster has (a RangeError as bounded.ts says). */
export function selectPods(
  cluster: Cluster,
  opts: PodSelectionOptions,
): Bounded & { readonly total: number } {
  const all = podKeys(cluster);
  const chosen = bounded(
    all,
    {
      ...(opts.pods !== undefined ? { names: opts.pods } : {}),
      max: opts.maxPods ?? DEFAULT_MAX_PODS,
    },
    "pod",
  );
  return { ...chosen, total: all.length };
}
