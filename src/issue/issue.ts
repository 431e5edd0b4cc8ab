/**
 * Problems found in user input, kept as data: one `Issue` type for every input kube-netsim reads
 * (manifests and config files, iptables-save/-restore text, ipset and ipvsadm text, nft input,
 * policies). Every check pushes issues; the caller throws one `ValidationError`
 * (validation-error.ts) with all of them, so a user sees every problem at once. Words live in the
 * `message` built by the code that detects the problem, following the phrasing of the tool the
 * input is for (the API server, iptables-restore, nft, ipvsadm). This module sits below every
 * other: the netfilter layer reports with it as the model does.
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

/**
 * Where an issue is: a position in a file. Line-oriented inputs (iptables-restore, ipset,
 * ipvsadm text) name only the line, as the tools themselves do; YAML and nft input also name the
 * column.
 */
export interface IssueSource {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based; absent where the input is read line by line. */
  readonly col?: number;
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
  | "io"
  /** Rules text (iptables, ipset, ipvsadm, nft) that the tool it is for would refuse. */
  | "syntax";

export interface Issue {
  readonly code: IssueCode;
  readonly severity: Severity;
  readonly message: string;
  readonly source?: IssueSource;
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

/** `FILE:LINE:COL`, or `FILE:LINE` where the input has no columns. */
export function formatIssueSource(source: IssueSource): string {
  const at = `${escapeControl(source.file)}:${source.line}`;
  return source.col === undefined ? at : `${at}:${source.col}`;
}

/** A problem in rules text (`syntax`), at a line and, where the input has them, a column. */
export function syntaxIssue(source: IssueSource, message: string): Issue {
  return { code: "syntax", severity: "error", message, source, path: [] };
}

/**
 * `FILE:LINE:COL: Kind ns/name: field.path: message` (parts that are unknown are left out).
 * Always one line: every part that holds user text has its control characters escaped.
 */
export function formatIssue(issue: Issue): string {
  const parts: string[] = [];
  if (issue.source !== undefined) parts.push(formatIssueSource(issue.source));
  if (issue.object !== undefined) parts.push(formatObjectRef(issue.object));
  if (issue.path.length > 0) parts.push(displayFieldPath(issue.path));
  const message = escapeControl(issue.message);
  parts.push(issue.severity === "warning" ? `warning: ${message}` : message);
  return parts.join(": ");
}

export function errorsOf(issues: readonly Issue[]): Issue[] {
  return issues.filter((i) => i.severity === "error");
}
