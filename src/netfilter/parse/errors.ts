/**
 * Problems in iptables-save / iptables-restore (and ipset) text are `syntax` issues at a file and
 * line (iptables-restore names no column), thrown as one `ValidationError`.
 */
import { syntaxIssue, type Issue } from "../../issue/issue.js";
import { ValidationError } from "../../issue/validation-error.js";

/** A problem at `line` of `file` (1-based). */
export function lineIssue(file: string, line: number, message: string): Issue {
  return syntaxIssue({ file, line }, message);
}

/**
 * Thrown by `parseIptables` and `parseIpsetSave` with every problem found; its message is one
 * `FILE:LINE: message` line per issue. A `ValidationError`: catch that to handle every input.
 */
export class IptablesParseError extends ValidationError {
  constructor(issues: readonly Issue[]) {
    super(issues);
    this.name = "IptablesParseError";
  }
}
