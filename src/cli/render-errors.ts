/**
 * Errors from rendering that are the input's fault, reported as such (exit 2), never as an
 * internal error:
 * - the proxiers read their own restore text back; text that does not parse means the input led
 *   kube-proxy to write rules iptables-restore would refuse;
 * - with `--validation warn` the objects the API server would refuse are kept; when a generator
 *   cannot handle one of them, the message says the input is invalid and names the failure.
 */
import type { Cluster } from "../model/cluster.js";
import { formatIptablesIssue, IptablesParseError } from "../netfilter/parse/errors.js";
import { CliError } from "./exit.js";
import type { ManifestOptions } from "./load.js";

export function withRenderInputErrors<T>(
  opts: ManifestOptions,
  cluster: Cluster,
  render: () => T,
): T {
  try {
    return render();
  } catch (e) {
    if (e instanceof IptablesParseError)
      throw CliError.lines([
        "the rules kube-proxy would write for this input do not load (iptables-restore would refuse them):",
        ...e.issues.map(formatIptablesIssue),
      ]);
    if (e instanceof Error && opts.validation === "warn" && cluster.warnings.length > 0)
      throw new CliError(
        `cannot render input the API server would refuse (see the warnings above; --validation warn keeps it): ${e.message}`,
      );
    throw e;
  }
}
