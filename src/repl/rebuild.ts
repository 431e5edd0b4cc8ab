/**
 * Every REPL edit ends here: the session's objects with the edit applied go through the same
 * loader as `-f` (shape check, defaulting, validation, duplicates, Endpoints mirroring), so an
 * edit is accepted or refused exactly as the API server (and `validate`) would. A refused edit
 * returns the issues and the caller keeps its old snapshot.
 */
import type { Cluster } from "../model/cluster.js";
import type { FeatureGates } from "../model/feature-gates.js";
import { errorsOf, ValidationError, type Issue } from "../model/issue.js";
import { parseCluster } from "../model/load.js";
import type { ManifestInput } from "../model/yaml-documents.js";
import { keyOf, objectsManifest, objectsOf } from "./objects.js";

/** The label the session's own (unchanged) objects carry in issue positions. */
export const SESSION_FILE = "<session>";

export interface Edit {
  /** Object keys (`keyOf`) removed from the session. */
  readonly remove: readonly string[];
  /** New or replacing objects as manifest text (a user's file, the editor's buffer, or YAML we wrote). */
  readonly add?: ManifestInput;
}

export type Rebuilt =
  | { readonly ok: true; readonly cluster: Cluster; readonly warnings: readonly Issue[] }
  | { readonly ok: false; readonly issues: readonly Issue[] };

function parse(inputs: readonly ManifestInput[], featureGates: FeatureGates): Rebuilt {
  try {
    const cluster = parseCluster(inputs, { featureGates });
    return { ok: true, cluster, warnings: cluster.warnings };
  } catch (e) {
    if (e instanceof ValidationError) return { ok: false, issues: errorsOf(e.issues) };
    throw e;
  }
}

/** The snapshot after `edit`, or the loader's errors (nothing changes then). */
export function rebuild(cluster: Cluster, edit: Edit, featureGates: FeatureGates): Rebuilt {
  const replaced = new Set(edit.remove);
  if (edit.add !== undefined) {
    // Objects the added text defines replace the session's objects of the same key (apply).
    const alone = parse([edit.add], featureGates);
    if (!alone.ok) return alone;
    // Implicit namespaces have no source there and replace nothing.
    for (const o of objectsOf(alone.cluster)) {
      const key = keyOf(o);
      if (alone.cluster.sources[key]?.file === edit.add.file) replaced.add(key);
    }
  }
  const kept = objectsOf(cluster).filter((o) => !replaced.has(keyOf(o)));
  const inputs: ManifestInput[] = [{ file: SESSION_FILE, text: objectsManifest(kept) }];
  if (edit.add !== undefined) inputs.push(edit.add);
  const result = parse(inputs, featureGates);
  if (!result.ok || edit.add === undefined) return result;
  const file = edit.add.file;
  return { ...result, warnings: result.warnings.filter((w) => w.source?.file === file) };
}
