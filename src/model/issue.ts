/**
 * Problems found in user input, kept as data. Every check pushes issues; the caller throws one
 * `ValidationError` with all of them, so a user sees every problem at once. Words live in the
 * `message` built by the code that detects the problem, following the API server's phrasing.
 */

export interface SourcePosition {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
}

export interface ObjectRef {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

export type Severity = "error" | "warning";

export type IssueCode =
  | "yaml-syntax"
  | "not-an-object"
  | "missing-kind"
  | "unknown-kind"
  | "unknown-field"
  | "required"
  | "invalid"
  | "invalid-type"
  | "unsupported-value"
  | "duplicate"
  | "too-many"
  | "forbidden"
  | "not-found"
  | "cross-object"
  | "io";

export interface Issue {
  readonly code: IssueCode;
  readonly severity: Severity;
  readonly message: string;
  readonly source?: SourcePosition;
  readonly object?: ObjectRef;
  /** Field path inside the object, e.g. ["spec", "ports", 0, "protocol"]. */
  readonly path: readonly (string | number)[];
}

/** `spec.ports[0].protocol` */
export function formatFieldPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? p : `.${p}`;
  }
  return out;
}

export function formatObjectRef(o: ObjectRef): string {
  return o.namespace !== undefined && o.namespace !== ""
    ? `${o.kind} ${o.namespace}/${o.name}`
    : `${o.kind} ${o.name}`;
}

/** `FILE:LINE:COL: Kind ns/name: field.path: message` (parts that are unknown are left out). */
export function formatIssue(issue: Issue): string {
  const parts: string[] = [];
  if (issue.source !== undefined)
    parts.push(`${issue.source.file}:${issue.source.line}:${issue.source.col}`);
  if (issue.object !== undefined) parts.push(formatObjectRef(issue.object));
  if (issue.path.length > 0) parts.push(formatFieldPath(issue.path));
  parts.push(issue.severity === "warning" ? `warning: ${issue.message}` : issue.message);
  return parts.join(": ");
}

export class ValidationError extends Error {
  readonly issues: readonly Issue[];
  constructor(issues: readonly Issue[]) {
    super(issues.map(formatIssue).join("\n"));
    this.name = "ValidationError";
    this.issues = issues;
  }
}

export function errorsOf(issues: readonly Issue[]): Issue[] {
  return issues.filter((i) => i.severity === "error");
}
