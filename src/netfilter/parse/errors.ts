/** Errors in iptables-save / iptables-restore text, as data with a file and line. */

export interface IptablesIssue {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly message: string;
}

export function formatIptablesIssue(i: IptablesIssue): string {
  return `${i.file}:${i.line}: ${i.message}`;
}

/** Thrown by `parseIptables` with every problem found; its message is one line per issue. */
export class IptablesParseError extends Error {
  readonly issues: readonly IptablesIssue[];
  constructor(issues: readonly IptablesIssue[]) {
    super(issues.map(formatIptablesIssue).join("\n"));
    this.name = "IptablesParseError";
    this.issues = issues;
  }
}
