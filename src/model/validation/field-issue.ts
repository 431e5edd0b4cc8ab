/**
 * What a per-object check reports: a problem at a field path inside one object. The loader turns
 * these into `Issue`s by adding the object reference and the field's source position. Messages
 * follow apimachinery's field.Error phrasing (`Required value`, `Invalid value: <v>: <detail>`,
 * `Unsupported value: <v>: supported values: ...`, `Duplicate value: <v>`, `Forbidden: ...`).
 */
import type { Issue } from "../issue.js";

export type FieldPath = readonly (string | number)[];

/** An `Issue` before the loader places it: no source position or object yet. */
export type FieldIssue = Omit<Issue, "source" | "object">;

/** Go's %#v-like rendering of a value in `Invalid value` messages: strings quoted, numbers bare. */
export function showValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || v === undefined) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

export function required(path: FieldPath, detail = ""): FieldIssue {
  return {
    code: "required",
    severity: "error",
    message: detail === "" ? "Required value" : `Required value: ${detail}`,
    path,
  };
}

export function invalid(path: FieldPath, value: unknown, detail: string): FieldIssue {
  return {
    code: "invalid",
    severity: "error",
    message:
      detail === ""
        ? `Invalid value: ${showValue(value)}`
        : `Invalid value: ${showValue(value)}: ${detail}`,
    path,
  };
}

export function unsupported(
  path: FieldPath,
  value: unknown,
  supported: readonly string[],
): FieldIssue {
  return {
    code: "unsupported-value",
    severity: "error",
    message: `Unsupported value: ${showValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}`,
    path,
  };
}

export function duplicate(path: FieldPath, value: unknown): FieldIssue {
  return {
    code: "duplicate",
    severity: "error",
    message: `Duplicate value: ${showValue(value)}`,
    path,
  };
}

export function forbidden(path: FieldPath, detail: string): FieldIssue {
  return { code: "forbidden", severity: "error", message: `Forbidden: ${detail}`, path };
}

export function tooMany(path: FieldPath, actual: number, max: number): FieldIssue {
  return {
    code: "too-many",
    severity: "error",
    message: `Too many: ${actual}: must have at most ${max} items`,
    path,
  };
}
