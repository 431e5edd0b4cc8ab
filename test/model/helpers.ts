import { parseCluster, type LoadOptions } from "../../src/model/load.js";
import type { Cluster } from "../../src/model/cluster.js";
import { formatIssue, ValidationError } from "../../src/model/issue.js";

export const FILE = "t.yaml";

export function load(text: string, opts: LoadOptions = {}): Cluster {
  return parseCluster([{ file: FILE, text }], opts);
}

/** Every issue line (errors and warnings) the loader reports for `text`. */
export function issueLines(text: string, opts: LoadOptions = {}): string[] {
  try {
    return load(text, opts).warnings.map(formatIssue);
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map(formatIssue);
    throw e;
  }
}

/** Issue lines without the `FILE:LINE:COL: ` prefix, for tables of rules. */
export function messages(text: string, opts: LoadOptions = {}): string[] {
  return issueLines(text, opts).map((l) => l.replace(/^t\.yaml:\d+:\d+: /, ""));
}

/**
 * Validation tables run with KEP-4858's strict IP/CIDR validation on, to pin its messages; the
 * gate is off by default (alpha in 1.33 and 1.34), which tests of the default check separately.
 */
export const STRICT_IP: LoadOptions = { featureGates: { StrictIPCIDRValidation: true } };
