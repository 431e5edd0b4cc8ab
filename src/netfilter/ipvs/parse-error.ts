import { syntaxIssue } from "../../issue/issue.js";
import { ValidationError } from "../../issue/validation-error.js";

/**
 * A line of ipvsadm text that could not be read: a `ValidationError` with one `syntax` issue,
 * printed as `FILE:LINE: message` (ipvsadm names no column).
 */
export class IpvsParseError extends ValidationError {
  readonly line: number;
  readonly file: string | undefined;
  constructor(message: string, line: number, file?: string) {
    super([syntaxIssue({ file: file ?? "<ipvs>", line }, message)]);
    this.name = "IpvsParseError";
    this.line = line;
    this.file = file;
  }
}
