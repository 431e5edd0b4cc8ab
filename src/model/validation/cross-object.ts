/**
 * Warnings about relations between objects that the API server does not check but a user would
 * want to know about. Never errors: each object is valid on its own.
 */
import type { ClusterObjects } from "../cluster.js";
import type { Issue } from "../issue.js";
import type { LoadedObject } from "../load.js";

export function crossObjectWarnings(
  _objects: ClusterObjects,
  _loaded: readonly LoadedObject[],
): Issue[] {
  return [];
}
