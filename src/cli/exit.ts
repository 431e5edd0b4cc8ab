/** Exit codes scripts rely on (interfaces.md). */
export const EXIT_OK = 0;
/** A check or verdict failed (policy denied, diff found, ...). */
export const EXIT_CHECK_FAILED = 1;
/** Bad input or usage. */
export const EXIT_BAD_INPUT = 2;

/** A user-facing error: printed as its message alone, never with a stack trace. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = EXIT_BAD_INPUT) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
