/**
 * Where each field of one loaded object sits in its file. Keys are field paths formatted by
 * `formatFieldPath` relative to the object ("" is the object itself), so a later check can point
 * at `FILE:LINE:COL` of the field it complains about, or of the nearest enclosing field.
 */
import { formatFieldPath, type SourcePosition } from "./issue.js";

export type FieldPositions = Readonly<Record<string, SourcePosition>>;

/** The position of `path`, or of its nearest ancestor that has one. */
export function positionOf(
  positions: FieldPositions | undefined,
  path: readonly (string | number)[],
): SourcePosition | undefined {
  if (positions === undefined) return undefined;
  for (let n = path.length; n >= 0; n--) {
    const p = positions[formatFieldPath(path.slice(0, n))];
    if (p !== undefined) return p;
  }
  return undefined;
}
