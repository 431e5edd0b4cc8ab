/**
 * The one error class for failures that are not the input's fault: the environment cannot do
 * what was asked (no privilege or tool for the netns backend, a node without IPVS for the IPVS
 * proxier) or a trace outgrew its budget. Bad input is a `ValidationError` (validation-error.ts)
 * carrying `Issue`s; everything else a user may see is an `OperationalError` with a `code` to
 * branch on and a one-line message. The CLI prints both in one place (src/cli/render-errors.ts).
 */

export type OperationalCode =
  /** A backend cannot run here: missing privilege, tool or kernel feature, rules the kernel refuses. */
  | "backend-unavailable"
  /** The node cannot run the IPVS proxier (its environment says `kernel.ipvs: false`). */
  | "ipvs-unavailable"
  /** A trace gave up: chains nest too deep, a jump names no chain, the branch budget ran out. */
  | "trace-limit"
  /** An optional peer dependency the call needs is not installed (fast-check for property suites). */
  | "dependency-missing";

export class OperationalError extends Error {
  readonly code: OperationalCode;
  constructor(code: OperationalCode, message: string) {
    super(message);
    this.name = "OperationalError";
    this.code = code;
  }
}
