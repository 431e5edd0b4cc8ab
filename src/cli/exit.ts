/** Exit codes scripts rely on (interfaces.md). */
export const EXIT_OK = 0;
/** A check or verdict failed (policy denied, diff found, ...). */
export const EXIT_CHECK_FAILED = 1;
/** Bad input or usage. */
export const EXIT_BAD_INPUT = 2;
/** A programmer's error, printed with its stack (sysexits' EX_SOFTWARE). */
export const EXIT_INTERNAL = 70;

/**
 * A user-facing error: printed as its message alone, never with a stack trace, on one line
 * (control characters in it escaped), unless it was made with `CliError.lines` from several
 * problems, one line each.
 */
export class CliError extends Error {
  readonly exitCode: number;
  /** The problems, one line each, when there are several. */
  readonly lines?: readonly string[];
  constructor(message: string, exitCode = EXIT_BAD_INPUT, lines?: readonly string[]) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
    if (lines !== undefined) this.lines = lines;
  }

  /** Several problems (a heading and one line per problem); each line is escaped on its own. */
  static lines(lines: readonly string[], exitCode = EXIT_BAD_INPUT): CliError {
    return new CliError(lines.join("\n"), exitCode, lines);
  }
}
