/** `diff`, objects part: which objects were added, removed or changed, and which fields. */
import type { Cluster } from "../model/cluster.js";
import { formatFieldPath } from "../model/issue.js";
import { isRecord } from "../util/plain.js";
import { keyOf, objectsOf, refOf, type SessionObject } from "./objects.js";

export type ObjectChange =
  | { readonly kind: "added" | "removed"; readonly object: SessionObject }
  | {
      readonly kind: "changed";
      readonly object: SessionObject;
      readonly fields: readonly FieldChange[];
    };

export interface FieldChange {
  readonly path: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

function leaves(v: unknown, path: (string | number)[], out: Map<string, unknown>): void {
  if (Array.isArray(v) && v.length > 0) v.forEach((x, i) => leaves(x, [...path, i], out));
  else if (isRecord(v) && Object.keys(v).length > 0)
    for (const [k, x] of Object.entries(v)) leaves(x, [...path, k], out);
  else out.set(formatFieldPath(path), v);
}

export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  leaves(before, [], a);
  leaves(after, [], b);
  const changes: FieldChange[] = [];
  for (const [path, v] of a) {
    if (!b.has(path)) changes.push({ path, before: v });
    else if (JSON.stringify(b.get(path)) !== JSON.stringify(v))
      changes.push({ path, before: v, after: b.get(path) });
  }
  for (const [path, v] of b) if (!a.has(path)) changes.push({ path, after: v });
  return changes;
}

export function objectChanges(before: Cluster, after: Cluster): ObjectChange[] {
  const a = new Map(objectsOf(before).map((o) => [keyOf(o), o]));
  const b = new Map(objectsOf(after).map((o) => [keyOf(o), o]));
  const out: ObjectChange[] = [];
  for (const [key, o] of a) {
    const n = b.get(key);
    if (n === undefined) out.push({ kind: "removed", object: o });
    // Every edit reloads the session, so equal objects are seldom the same one: compare their
    // JSON first (fast), and their fields only when it differs (a 10,000-Service session had
    // every object's fields walked on each diff).
    else if (n.value !== o.value && JSON.stringify(n.value) !== JSON.stringify(o.value)) {
      const fields = fieldChanges(o.value, n.value);
      if (fields.length > 0) out.push({ kind: "changed", object: n, fields });
    }
  }
  for (const [key, o] of b) if (!a.has(key)) out.push({ kind: "added", object: o });
  return out;
}

function show(v: unknown): string {
  return v === undefined ? "(none)" : typeof v === "string" ? v : JSON.stringify(v);
}

export function formatObjectChanges(changes: readonly ObjectChange[]): string[] {
  const lines: string[] = [];
  for (const c of changes) {
    const name = `${c.object.kind} ${refOf(c.object)}`;
    switch (c.kind) {
      case "added":
        lines.push(`  + ${name}`);
        break;
      case "removed":
        lines.push(`  - ${name}`);
        break;
      case "changed":
        lines.push(`  ~ ${name}`);
        for (const f of c.fields)
          lines.push(`      ${f.path}: ${show(f.before)} -> ${show(f.after)}`);
        break;
    }
  }
  return lines;
}
