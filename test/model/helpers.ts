import { clusterFromManifests, parseCluster, type LoadOptions } from "../../src/model/load.js";
import { readManifests, type Decoders } from "../../src/model/yaml-documents.js";
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

/**
 * Everything a load of `text` produces, positions included (read, which computes them): with the
 * fast decoders (the default), the `yaml` path alone, or "streamed", parseCluster's reading, which
 * loads each object as soon as it is decoded. With `bytes`, the text's UTF-8 bytes are given too,
 * as a file's reading gives them (the subset reader reads them).
 */
export function loadOutcome(text: string, decoders: Decoders | "streamed", bytes = false): unknown {
  try {
    const input = bytes
      ? { file: "m.yaml", text, bytes: Buffer.from(text, "utf8") }
      : { file: "m.yaml", text };
    const c =
      decoders === "streamed"
        ? parseCluster([input], { validation: "warn" })
        : clusterFromManifests(readManifests([input], decoders), { validation: "warn" });
    return JSON.parse(
      JSON.stringify({
        objects: [c.namespaces, c.pods, c.services, c.endpointSlices, c.networkPolicies, c.nodes],
        warnings: c.warnings.map(formatIssue),
        sources: c.sources,
        fieldSources: c.fieldSources,
      }),
    );
  } catch (e) {
    if (e instanceof ValidationError) return { errors: e.issues.map(formatIssue) };
    throw e;
  }
}
