/**
 * The one error class for bad input: it carries every problem found, as `Issue` data, and its
 * message is one line per issue (`formatIssue`). Parsers of rules text throw it too (their named
 * subclasses, e.g. `IptablesParseError`, only say which reader found the problems), so a caller
 * catches `ValidationError` once and the CLI prints them all in one place (src/cli/render-errors.ts).
 */
import { formatIssue, type Issue } from "./issue.js";

export class ValidationError extends Error {
  readonly issues: readonly Issue[];
  constructor(issues: readonly Issue[]) {
    super(issues.map(formatIssue).join("\n"));
    this.name = "ValidationError";
    this.issues = issues;
  }
}
