/**
 * `kube-netsim validate -f ...`: loads the manifests with API-server defaulting and validation
 * and reports every issue. Text: warnings and errors on stderr (one `FILE:LINE:COL: Kind ns/name:
 * field: message` line each), then `ok` on stdout when there is no error. JSON: one document on
 * stdout with every issue. Exit 0 when valid, 2 on any error.
 */
import type { Command } from "commander";
import type { Cluster } from "../../model/cluster.js";
import { displayFieldPath, ValidationError, type Issue } from "../../model/issue.js";
import { loadCluster } from "../../model/load-files.js";
import { CliError, EXIT_BAD_INPUT, EXIT_OK } from "../exit.js";
import { addManifestOptions, refuseEmpty, type ManifestOptions } from "../load.js";
import { parseOutputFormat, renderData } from "../output.js";
import type { CliIO } from "../program.js";
import { startProgress } from "../progress.js";
import { issueLines } from "../render-errors.js";

interface ValidateOptions extends ManifestOptions {
  readonly output: string;
}

function counts(cluster: Cluster): Record<string, number> {
  return {
    namespaces: cluster.namespaces.length,
    nodes: cluster.nodes.length,
    pods: cluster.pods.length,
    services: cluster.services.length,
    endpointSlices: cluster.endpointSlices.length,
    networkPolicies: cluster.networkPolicies.length,
    adminNetworkPolicies: cluster.adminNetworkPolicies.length,
    baselineAdminNetworkPolicies: cluster.baselineAdminNetworkPolicies.length,
    clusterNetworkPolicies: cluster.clusterNetworkPolicies.length,
  };
}

function issueJson(i: Issue): Record<string, unknown> {
  return {
    severity: i.severity,
    code: i.code,
    ...(i.source !== undefined
      ? { file: i.source.file, line: i.source.line, col: i.source.col }
      : {}),
    ...(i.object !== undefined ? { object: i.object } : {}),
    ...(i.path.length > 0 ? { field: displayFieldPath(i.path) } : {}),
    message: i.message,
  };
}

export function runValidate(opts: ValidateOptions, io: CliIO): number {
  const format = parseOutputFormat(opts.output, ["text", "json"]);
  const files = opts.filename ?? [];
  if (files.length === 0) throw new CliError("no manifests given: use -f FILE, -f DIR or -f -");
  let cluster: Cluster | undefined;
  let issues: readonly Issue[];
  const progress = startProgress(io, opts);
  progress.phase("loading manifests");
  try {
    cluster = loadCluster(files, {
      validation: opts.validation ?? "strict",
      featureGates: opts.featureGates ?? {},
      readStdin: io.readStdin,
    });
    issues = cluster.warnings;
    refuseEmpty(cluster, files);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    issues = e.issues;
  } finally {
    progress.end();
  }
  const errors = issues.filter((i) => i.severity === "error").length;
  const valid = errors === 0;
  if (format === "json") {
    io.stdout(
      renderData(
        {
          valid,
          errors,
          warnings: issues.length - errors,
          issues: issues.map(issueJson),
          ...(cluster !== undefined ? { objects: counts(cluster) } : {}),
        },
        "json",
      ),
    );
  } else {
    for (const line of issueLines(issues)) io.stderr(`${line}\n`);
    if (valid) io.stdout("ok\n");
  }
  return valid ? EXIT_OK : EXIT_BAD_INPUT;
}

export function registerValidate(program: Command, io: CliIO): void {
  addManifestOptions(
    program
      .command("validate")
      .description(
        "check manifests the way the API server would (defaulting, validation) and report every problem",
      )
      .option("-o, --output <format>", "text or json", "text"),
  )
    .addHelpText(
      "after",
      `
Exit codes: 0 valid (warnings allowed), 2 errors found or bad usage.

Examples:
  kube-netsim validate -f examples/sctp-test-plan/
  kube-netsim validate -f examples/multi-namespace-app/ --output json
  kube-netsim validate -f cluster.yaml --feature-gates SCTPSupport=false
  cat cluster.yaml | kube-netsim validate -f -`,
    )
    .action((opts: ValidateOptions) => {
      process.exitCode = runValidate(opts, io);
    });
}
