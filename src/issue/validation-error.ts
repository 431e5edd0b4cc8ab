/**
 * The one error class for bad input: it carries every problem found, as `Issue` data, and its
 * message is one line per issue (`formatIssue`). Parsers of rules text throw it too (their named
 * subclasses, e.g. `IptablesParseError`, only say which reader found the problems), so a caller
 * catches `ValidationError` once and the CLI prints them all in one place (src/cli/render-errors.ts).
 */
import { formatIssue, type Issue, type IssueCode, type IssueSource } from "./issue.js";

export class ValidationError extends Error {
  readonly issues: readonly Issue[];
  /** A line printed after the issues (the REPL's "(nothing changed)"). */
  readonly note?: string;
  constructor(issues: readonly Issue[], note?: string) {
    super([...issues.map(formatIssue), ...(note !== undefined ? [note] : [])].join("\n"));
    this.name = "ValidationError";
    this.issues = issues;
    if (note !== undefined) this.note = note;
  }
}

/** Where one input problem is, as far as the code that found it knows. */
export interface IssueAt {
  readonly source?: IssueSource;
  readonly object?: Issue["object"];
  readonly path?: Issue["path"];
}

/** One error-severity issue: what the named `ValidationError` subclasses carry. */
export function inputIssue(code: IssueCode, message: string, at: IssueAt = {}): Issue {
  return {
    code,
    severity: "error",
    message,
    ...(at.source !== undefined ? { source: at.source } : {}),
    ...(at.object !== undefined ? { object: at.object } : {}),
    path: at.path ?? [],
  };
}
