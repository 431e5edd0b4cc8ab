/**
 * The one place the CLI turns problems into text. Every input problem is an `Issue` inside a
 * `ValidationError` (src/issue/): manifests, config files, iptables/ipset/ipvsadm/nft text.
 * Each issue prints as one line, `FILE:LINE[:COL]: Kind ns/name: field.path: message`, user text
 * escaped (`formatIssue`); a ValidationError with an error in it exits 2.
 *
 * Errors from rendering that are the input's fault are reported as such (exit 2), never as an
 * internal error:
 * - rules text that does not parse means the input led kube-proxy to write rules
 *   iptables-restore would refuse;
 * - with `--validation warn` the objects the API server would refuse are kept; when a generator
 *   cannot handle one of them, the message says the input is invalid and names the failure.
 */
import type { Cluster } from "../model/cluster.js";
import { errorsOf, formatIssue, type Issue } from "../issue/issue.js";
import { ValidationError } from "../issue/validation-error.js";
import { CliError, EXIT_BAD_INPUT, EXIT_OK } from "./exit.js";
import type { ManifestOptions } from "./load.js";
import type { CliIO } from "./program.js";

/** One line per issue, in the order given. */
export function issueLines(issues: readonly Issue[]): string[] {
  return issues.map(formatIssue);
}

/** One line per issue, in source order (file, line, column), as a reader goes through a file. */
export function issueLinesInSourceOrder(issues: readonly Issue[]): string[] {
  return issueLines(
    [...issues].sort(
      (a, b) =>
        (a.source?.line ?? 0) - (b.source?.line ?? 0) ||
        (a.source?.col ?? 0) - (b.source?.col ?? 0),
    ),
  );
}

/** Prints every issue on stderr; exit 2 when one is an error, 0 for warnings only. */
export function reportIssues(issues: readonly Issue[], io: CliIO): number {
  io.stderr(
    issueLines(issues)
      .map((l) => `${l}\n`)
      .join(""),
  );
  return errorsOf(issues).length > 0 ? EXIT_BAD_INPUT : EXIT_OK;
}

/**
 * Problems in an input a command reads beside the manifests (`trace --rules`, a snapshot, a
 * policy query's ends): one `kube-netsim: ` line each, as the command's other errors print.
 */
export function issuesAsCliError(e: ValidationError): CliError {
  return CliError.lines(issueLines(e.issues));
}

export function withRenderInputErrors<T>(
  opts: ManifestOptions,
  cluster: Cluster,
  render: () => T,
): T {
  try {
    return render();
  } catch (e) {
    // The cluster is loaded already: a ValidationError here is about the rules written for it.
    if (e instanceof ValidationError)
      throw CliError.lines([
        "the rules kube-proxy would write for this input do not load (iptables-restore would refuse them):",
        ...issueLines(e.issues),
      ]);
    if (e instanceof Error && opts.validation === "warn" && cluster.warnings.length > 0)
      throw new CliError(
        `cannot render input the API server would refuse (see the warnings above; --validation warn keeps it): ${e.message}`,
      );
    throw e;
  }
}
