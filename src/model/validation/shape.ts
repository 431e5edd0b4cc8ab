/**
 * The structural pass that stands in for Go's typed JSON decoding: every field is checked against
 * the kind's shape (string, integer, boolean, int-or-string, object, map, list). A value of the
 * wrong type is an error and is removed (list items are replaced by the type's zero value so later
 * indices keep their meaning), so defaulting and validation only ever see well-typed data. `null`
 * is the Go zero value, as in the API server. Fields the shape does not know are warnings, as
 * with `kubectl --validate=warn`; `open` objects accept any field (parts kube-netsim ignores).
 */
import { isRecord, type PlainRecord } from "../../util/plain.js";
import { displayFieldPath } from "../issue.js";
import { showValue, type FieldIssue } from "./field-issue.js";

export type Shape =
  | { readonly t: "string" }
  | { readonly t: "int" }
  | { readonly t: "bool" }
  | { readonly t: "intOrString" }
  | { readonly t: "any" }
  | {
      readonly t: "object";
      readonly fields: Readonly<Record<string, Shape>>;
      readonly open: boolean;
    }
  | { readonly t: "map"; readonly of: Shape }
  | { readonly t: "list"; readonly of: Shape };

export const STR: Shape = { t: "string" };
export const INT: Shape = { t: "int" };
export const BOOL: Shape = { t: "bool" };
export const INT_OR_STR: Shape = { t: "intOrString" };
export const ANY: Shape = { t: "any" };
export const obj = (fields: Record<string, Shape>): Shape => ({ t: "object", fields, open: false });
/** An object whose other fields kube-netsim does not model; they are accepted silently. */
export const openObj = (fields: Record<string, Shape> = {}): Shape => ({
  t: "object",
  fields,
  open: true,
});
export const map = (of: Shape): Shape => ({ t: "map", of });
export const list = (of: Shape): Shape => ({ t: "list", of });
/** Field names whose values kube-netsim does not look at: any JSON is accepted. */
export const anyOf = (...names: string[]): Record<string, Shape> =>
  Object.fromEntries(names.map((n) => [n, ANY]));

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function zeroOf(shape: Shape): unknown {
  switch (shape.t) {
    case "string":
      return "";
    case "int":
      return 0;
    case "bool":
      return false;
    case "intOrString":
      return 0;
    case "any":
      return null;
    case "object":
    case "map":
      return {};
    case "list":
      return [];
  }
}

function typeName(shape: Shape): string {
  switch (shape.t) {
    case "string":
      return "string";
    case "int":
      return "integer";
    case "bool":
      return "boolean";
    case "intOrString":
      return "integer or string";
    case "any":
      return "any";
    case "object":
    case "map":
      return "object";
    case "list":
      return "array";
  }
}

/**
 * The walk keeps the current field path in one mutable stack (`at`) and copies it only when it
 * reports: most fields are well-typed, and a path array per field was most of the walk's cost.
 */
type PathStack = (string | number)[];

function wrongType(at: PathStack, v: unknown, shape: Shape): FieldIssue {
  return {
    code: "invalid-type",
    severity: "error",
    message: `Invalid value: ${showValue(v)}: must be of type ${typeName(shape)}`,
    path: at.slice(),
  };
}

function isInt32(v: unknown): boolean {
  return typeof v === "number" && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
}

/** Checks `v` against `shape`; returns false when `v` has the wrong type (and should be dropped). */
function check(v: unknown, shape: Shape, at: PathStack, out: FieldIssue[]): boolean {
  switch (shape.t) {
    case "any":
      return true;
    case "string":
      if (typeof v === "string") return true;
      out.push(wrongType(at, v, shape));
      return false;
    case "bool":
      if (typeof v === "boolean") return true;
      out.push(wrongType(at, v, shape));
      return false;
    case "int":
      if (isInt32(v)) return true;
      if (typeof v === "number" && Number.isInteger(v))
        out.push({
          code: "invalid-type",
          severity: "error",
          message: `Invalid value: ${v}: must fit in a 32-bit integer`,
          path: at.slice(),
        });
      else out.push(wrongType(at, v, shape));
      return false;
    case "intOrString":
      if (typeof v === "string" || isInt32(v)) return true;
      out.push(wrongType(at, v, shape));
      return false;
    case "list": {
      if (!Array.isArray(v)) {
        out.push(wrongType(at, v, shape));
        return false;
      }
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (item === null || item === undefined) {
          v[i] = zeroOf(shape.of);
          continue;
        }
        at.push(i);
        if (!check(item, shape.of, at, out)) v[i] = zeroOf(shape.of);
        at.pop();
      }
      return true;
    }
    case "map": {
      if (!isRecord(v)) {
        out.push(wrongType(at, v, shape));
        return false;
      }
      // for-in rather than Object.keys: no array per object (deleting the key being visited is
      // allowed; the objects are plain, with nothing enumerable inherited).
      for (const k in v) {
        const item = v[k];
        if (item === null || item === undefined) {
          if (shape.of.t === "string") v[k] = "";
          else delete v[k];
          continue;
        }
        at.push(k);
        if (!check(item, shape.of, at, out)) delete v[k];
        at.pop();
      }
      return true;
    }
    case "object": {
      if (!isRecord(v)) {
        out.push(wrongType(at, v, shape));
        return false;
      }
      checkObject(v, shape.fields, shape.open, at, out);
      return true;
    }
  }
}

function checkObject(
  v: PlainRecord,
  fields: Readonly<Record<string, Shape>>,
  open: boolean,
  at: PathStack,
  out: FieldIssue[],
): void {
  for (const k in v) {
    const fieldShape = Object.prototype.hasOwnProperty.call(fields, k) ? fields[k] : undefined;
    if (fieldShape === undefined) {
      if (!open) {
        const childPath = [...at, k];
        out.push({
          code: "unknown-field",
          severity: "warning",
          message: `unknown field "${displayFieldPath(childPath)}"`,
          path: childPath,
        });
      }
      continue;
    }
    const item = v[k];
    if (item === null || item === undefined) {
      delete v[k];
      continue;
    }
    at.push(k);
    if (!check(item, fieldShape, at, out)) delete v[k];
    at.pop();
  }
}

/** Checks a whole object against the top-level fields of its kind. */
export function checkObjectShape(
  v: PlainRecord,
  fields: Readonly<Record<string, Shape>>,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  checkObject(v, fields, false, [], out);
  return out;
}
