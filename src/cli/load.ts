/**
 * The options every command that reads manifests shares (`-f`, `--validation`,
 * `--feature-gates`) and the node options (`--node-env`, `--node`, `--proxy-config`), with the
 * functions that turn them into model objects. Warnings go to stderr; errors are thrown as
 * ValidationError or CliError for render-errors.ts to print.
 */
import { readText } from "./read-text.js";
import { Option, type Command } from "commander";
import type { Cluster } from "../model/cluster.js";
import { parseFeatureGates, type FeatureGates } from "../model/feature-gates.js";
import { formatIssue } from "../model/issue.js";
import { loadCluster } from "../model/load-files.js";
import type { ValidationMode } from "../model/load.js";
import { nodeEnvironmentFromNode, parseNodeEnvironment } from "../model/load-node-environment.js";
import { parseProxyConfigWithWarnings } from "../model/load-proxy-config.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import { DEFAULT_PROXY_CONFIG, type KubeProxyConfiguration } from "../model/proxy-config.js";
import { CliError } from "./exit.js";
import type { CliIO } from "./program.js";
import type { Progress } from "./progress.js";

export interface ManifestOptions {
  readonly filename?: readonly string[];
  /** No progress on stderr (it is shown only on a terminal anyway). */
  readonly quiet?: boolean;
  readonly validation?: ValidationMode;
  readonly featureGates?: FeatureGates;
}

export interface NodeOptions {
  readonly nodeEnv?: string;
  readonly node?: string;
  readonly proxyConfig?: string;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function parseGatesOption(value: string, previous: FeatureGates | undefined): FeatureGates {
  const r = parseFeatureGates(value);
  if ("error" in r) throw new CliError(`--feature-gates: ${r.error}`);
  return { ...(previous ?? {}), ...r.gates };
}

export function addManifestOptions(cmd: Command): Command {
  return cmd
    .option(
      "-f, --filename <path>",
      "manifest file, directory or - for stdin (repeatable)",
      collect,
    )
    .addOption(
      new Option(
        "--validation <mode>",
        "strict: errors fail; warn: report errors as warnings and go on",
      )
        .choices(["strict", "warn"])
        .default("strict"),
    )
    .option(
      "--feature-gates <gates>",
      "Kubernetes feature gates, Key=bool,... (e.g. SCTPSupport=false)",
      parseGatesOption,
    )
    .option("-q, --quiet", "no progress on stderr (shown only when stderr is a terminal)");
}

export function addNodeOptions(cmd: Command): Command {
  return cmd
    .option("--node-env <file>", "NodeEnvironment file describing the node the rules are for")
    .option("--node <name>", "take the node from this Node object's addresses (without --node-env)")
    .option(
      "--proxy-config <file>",
      "KubeProxyConfiguration file (default: kube-proxy's defaults)",
    );
}

export function loadClusterFromOptions(
  opts: ManifestOptions,
  io: CliIO,
  progress?: Progress,
): Cluster {
  const files = opts.filename ?? [];
  if (files.length === 0) throw new CliError("no manifests given: use -f FILE, -f DIR or -f -");
  progress?.phase("loading manifests");
  let cluster: Cluster;
  try {
    cluster = loadCluster(files, {
      validation: opts.validation ?? "strict",
      featureGates: opts.featureGates ?? {},
      readStdin: io.readStdin,
    });
  } finally {
    progress?.end();
  }
  for (const w of cluster.warnings) io.stderr(`${formatIssue(w)}\n`);
  refuseEmpty(cluster, files);
  return cluster;
}

/** Objects the input held: every one loaded (all have a source) plus those of other kinds (warned). */
export function documentCount(cluster: Cluster): number {
  return (
    Object.keys(cluster.sources).length +
    cluster.warnings.filter((w) => w.code === "unknown-kind").length
  );
}

/** An input with no objects at all is an error, as kubectl says "no objects passed to apply". */
export function refuseEmpty(cluster: Cluster, files: readonly string[]): void {
  if (documentCount(cluster) === 0)
    throw new CliError(
      `no objects passed: ${files.map((f) => (f === "-" ? "standard input" : f)).join(", ")} hold${files.length === 1 ? "s" : ""} no Kubernetes objects`,
    );
}

export function loadNodeEnvironmentFromOptions(
  opts: NodeOptions,
  cluster: Cluster,
): NodeEnvironment {
  if (opts.nodeEnv !== undefined) {
    const env = parseNodeEnvironment(readText(opts.nodeEnv, "--node-env"), opts.nodeEnv);
    if (opts.node !== undefined && opts.node !== env.nodeName)
      throw new CliError(
        `--node ${opts.node} disagrees with nodeName "${env.nodeName}" in ${opts.nodeEnv}; give one of them`,
      );
    return env;
  }
  if (opts.node !== undefined) return nodeEnvironmentFromNode(cluster, opts.node);
  throw new CliError("no node given: use --node-env FILE or --node NAME");
}

export function loadProxyConfigFromOptions(opts: NodeOptions, io?: CliIO): KubeProxyConfiguration {
  if (opts.proxyConfig === undefined) return DEFAULT_PROXY_CONFIG;
  const parsed = parseProxyConfigWithWarnings(
    readText(opts.proxyConfig, "--proxy-config"),
    opts.proxyConfig,
  );
  if (io !== undefined) for (const w of parsed.warnings) io.stderr(`${formatIssue(w)}\n`);
  return parsed.config;
}
