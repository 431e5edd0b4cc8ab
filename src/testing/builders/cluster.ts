/**
 * `cluster(...objects)`: the Cluster `loadCluster` returns for these objects (builders' output
 * or any plain Kubernetes objects; arrays are flattened). They go through the loader itself, so
 * API-server defaulting and validation are the same, and a problem throws the loader's
 * ValidationError: `<cluster()>:LINE:COL: Kind ns/name: field.path: message`, the position in
 * the JSON the objects were written as (one document per object, in argument order).
 */
import type { Cluster } from "../../model/cluster.js";
import { parseCluster, type LoadOptions } from "../../model/load.js";

export type ClusterObject = object;

/** The file name builder errors carry. */
export const BUILDER_SOURCE = "<cluster()>";

function flatten(items: readonly (ClusterObject | readonly ClusterObject[])[]): ClusterObject[] {
  return items.flatMap((o) => (Array.isArray(o) ? (o as ClusterObject[]) : [o]));
}

/** Objects as multi-document YAML text (JSON documents), one per object. */
export function manifestText(objects: readonly ClusterObject[]): string {
  return objects.map((o) => `---\n${JSON.stringify(o, null, 2)}\n`).join("");
}

export function cluster(...objects: (ClusterObject | readonly ClusterObject[])[]): Cluster {
  return clusterWith({}, ...objects);
}

/** cluster() with loader options (e.g. `{validation: "warn"}`, feature gates). */
export function clusterWith(
  options: LoadOptions,
  ...objects: (ClusterObject | readonly ClusterObject[])[]
): Cluster {
  return parseCluster([{ file: BUILDER_SOURCE, text: manifestText(flatten(objects)) }], options);
}
