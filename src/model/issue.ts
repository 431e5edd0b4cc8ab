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

/**
 * `spec.ports[0].protocol`: the key under which field positions are recorded and looked up
 * (every element joined as written). For what a user reads, use `displayFieldPath`.
 */
export function formatFieldPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? p : `.${p}`;
  }
  return out;
}

/**
 * Control characters, the Unicode line and paragraph separators and lone surrogates (what
 * invalid UTF-8 decodes next to) written as escapes, so user text printed in a diagnostic stays
 * on its line and cannot drive the terminal: `\n`, `\t`, `\x1b`, `\u2028`. Backslashes are
 * kept as they are, so text that is already escaped (JSON-quoted values) reads the same.
 */
export function escapeControl(s: string): string {
  // Fast path: most text has nothing to escape.
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/.test(s)) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
    }
    out += escapeUnit(c) ?? s[i]!;
  }
  return out;
}

const NAMED_ESCAPES: Readonly<Record<number, string>> = {
  0x07: "\\a",
  0x08: "\\b",
  0x09: "\\t",
  0x0a: "\\n",
  0x0b: "\\v",
  0x0c: "\\f",
  0x0d: "\\r",
};

function escapeUnit(c: number): string | undefined {
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
    return NAMED_ESCAPES[c] ?? `\\x${c.toString(16).padStart(2, "0")}`;
  if (c === 0x2028 || c === 0x2029 || (c >= 0xd800 && c <= 0xdfff))
    return `\\u${c.toString(16).padStart(4, "0")}`;
  return undefined;
}

/** A field name as Go writes it in a path; anything else (a map key) is shown as `[key]`. */
const FIELD_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The field path as the API server prints it: `spec.ports[0].protocol`, map keys in brackets
 * (`metadata.annotations[service.kubernetes.io/topology-mode]`), control characters escaped.
 */
export function displayFieldPath(path: readonly (string | number)[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else if (!FIELD_NAME.test(p)) out += `[${escapeControl(p)}]`;
    else out += out === "" ? p : `.${p}`;
  }
  return out;
}

export function formatObjectRef(o: ObjectRef): string {
  const kind = escapeControl(o.kind);
  const name = escapeControl(o.name);
  return o.namespace !== undefined && o.namespace !== ""
    ? `${kind} ${escapeControl(o.namespace)}/${name}`
    : `${kind} ${name}`;
}

/**
 * `FILE:LINE:COL: Kind ns/name: field.path: message` (parts that are unknown are left out).
 * Always one line: every part that holds user text has its control characters escaped.
 */
export function formatIssue(issue: Issue): string {
  const parts: string[] = [];
  if (issue.source !== undefined)
    parts.push(`${escapeControl(issue.source.file)}:${issue.source.line}:${issue.source.col}`);
  if (issue.object !== undefined) parts.push(formatObjectRef(issue.object));
  if (issue.path.length > 0) parts.push(displayFieldPath(issue.path));
  const message = escapeControl(issue.message);
  parts.push(issue.severity === "warning" ? `warning: ${message}` : message);
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
