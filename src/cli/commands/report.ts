/**
 * `kube-netsim report -f ... [--node-env F] [--proxy-config F] [--pods LIST | --max-pods N]
 * [--services LIST | --max-services N] --out FILE.html`: the self-contained HTML report
 * (src/report). Progress goes to stderr when it is a terminal; a warning there when a bound left
 * pods out of the heat maps or Services out of the chains and traces.
 */
import { startProgress } from "../progress.js";
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { parsePortNumber, parseProtocol, type Protocol } from "../../net/index.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { renderReport, type ReportBound } from "../../report/report.js";
import { letYoungGenerationGrow } from "../young-generation.js";
import {
  DEFAULT_MAX_SERVICES,
  unknownServices,
  type ServiceSelectionOptions,
} from "../../report/service-selection.js";
import {
  DEFAULT_MAX_PODS,
  unknownPods,
  type PodSelectionOptions,
} from "../../report/pod-selection.js";
import type { Cluster } from "../../model/cluster.js";
import { warningLine } from "../render-errors.js";
import { CliError } from "../exit.js";
import {
  addManifestOptions,
  addNodeOptions,
  loadClusterFromOptions,
  loadNodeEnvironmentFromOptions,
  loadProxyConfigFromOptions,
  type ManifestOptions,
  type NodeOptions,
} from "../load.js";
import type { CliIO } from "../program.js";

interface ReportCommandOptions extends ManifestOptions, NodeOptions {
  readonly out: string;
  readonly services?: string;
  readonly maxServices?: string;
  readonly pods?: string;
  readonly maxPods?: string;
  readonly ports?: string;
  readonly protocols?: string;
  readonly quiet?: boolean;
}

function list<T>(
  value: string | undefined,
  what: string,
  parse: (s: string) => T | undefined,
): T[] | undefined {
  if (value === undefined) return undefined;
  return value.split(",").map((s) => {
    const v = parse(s.trim());
    if (v === undefined) throw new CliError(`${what}: invalid value "${s}"`);
    return v;
  });
}

/** `--NAMES` (NAMESPACE/NAME,...) or `--max-NAMES` (N or all), checked against the cluster. */
function boundOption(
  names: string | undefined,
  max: string | undefined,
  flag: string,
  unknown: (names: readonly string[]) => readonly string[],
  what: string,
): { readonly names?: readonly string[]; readonly max?: number } {
  if (names !== undefined && max !== undefined)
    throw new CliError(`--${flag} and --max-${flag}: give one or the other`);
  if (names !== undefined) {
    const list = names.split(",").map((s) => s.trim());
    const malformed = list.find((n) => !/^[^/\s]+\/[^/\s]+$/.test(n));
    if (malformed !== undefined)
      throw new CliError(`--${flag}: invalid value "${malformed}" (expected NAMESPACE/NAME)`);
    const missing = unknown(list);
    if (missing.length > 0)
      throw new CliError(`--${flag}: no ${what} ${missing.join(", ")} in the manifests`);
    return { names: list };
  }
  if (max === undefined) return {};
  if (max === "all") return { max: Infinity };
  if (!/^[1-9][0-9]{0,8}$/.test(max))
    throw new CliError(
      `--max-${flag}: invalid value "${max}" (expected a positive integer or all)`,
    );
  return { max: Number(max) };
}

/** `--services`/`--max-services` and `--pods`/`--max-pods` as the report's options. */
function boundOptions(
  cluster: Cluster,
  opts: ReportCommandOptions,
): ServiceSelectionOptions & PodSelectionOptions {
  const services = boundOption(
    opts.services,
    opts.maxServices,
    "services",
    (names) => unknownServices(cluster, names),
    "Service",
  );
  const pods = boundOption(
    opts.pods,
    opts.maxPods,
    "pods",
    (names) => unknownPods(cluster, names),
    "pod",
  );
  return {
    ...(services.names !== undefined ? { services: services.names } : {}),
    ...(services.max !== undefined ? { maxServices: services.max } : {}),
    ...(pods.names !== undefined ? { pods: pods.names } : {}),
    ...(pods.max !== undefined ? { maxPods: pods.max } : {}),
  };
}

function boundWarning(b: ReportBound): string {
  return b.what === "pods"
    ? `report: heat maps of ${b.shown} of ${b.total} pods (the first in the manifests); --pods or --max-pods for others`
    : `report: chains and traces of ${b.shown} of ${b.total} Services (the first by namespace/name); --services or --max-services for others`;
}

export function registerReport(program: Command, io: CliIO): void {
  const cmd = program
    .command("report")
    .description(
      "one self-contained HTML page: policy heat maps, service chain graphs, traces, node summary",
    );
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd
    .requiredOption("--out <file>", "the HTML file to write")
    .option("--ports <list>", "policy heat-map ports (default: every declared containerPort)")
    .option("--protocols <list>", "policy heat-map protocols (default: TCP,UDP,SCTP)")
    .option(
      "--pods <list>",
      "heat maps of only these pods, NAMESPACE/NAME,... (default: the first in the manifests, up to --max-pods)",
    )
    .option("--max-pods <n>", `heat maps of at most N pods, or all (default: ${DEFAULT_MAX_PODS})`)
    .option(
      "--services <list>",
      "draw and trace only these Services, NAMESPACE/NAME,... (default: the first by namespace/name, up to --max-services)",
    )
    .option(
      "--max-services <n>",
      `at most N Services drawn and traced, or all (default: ${DEFAULT_MAX_SERVICES}; the node summary counts every one)`,
    )
    .addHelpText(
      "after",
      `
Example:
  kube-netsim report -f examples/sctp-test-plan/ --node-env examples/sctp-test-plan/node.yaml --out report.html`,
    )
    .action((opts: ReportCommandOptions) => {
      const cluster = loadClusterFromOptions(opts, io);
      letYoungGenerationGrow();
      const node: NodeEnvironment | undefined =
        opts.nodeEnv !== undefined || opts.node !== undefined
          ? loadNodeEnvironmentFromOptions(opts, cluster)
          : undefined;
      const proxyConfig = loadProxyConfigFromOptions(opts, io);
      const ports = list(opts.ports, "--ports", (s) => {
        const n = parsePortNumber(s);
        return n !== undefined && n > 0 ? n : undefined;
      });
      const protocols = list<Protocol>(opts.protocols, "--protocols", parseProtocol);
      const chosen = boundOptions(cluster, opts);
      // The CLI's one progress line (a terminal only, never with -q), as validate and render use it.
      const progress = startProgress(io, opts);
      // Said once the progress line is gone (a terminal's line is rewritten in place).
      const bounds: ReportBound[] = [];
      const html = renderReport(cluster, {
        ...(node !== undefined ? { node } : {}),
        ...chosen,
        proxyConfig,
        matrix: {
          ...(ports !== undefined ? { ports } : {}),
          ...(protocols !== undefined ? { protocols } : {}),
        },
        subtitle: (opts.filename ?? []).join(" "),
        progress: (step: string) => progress.phase(`report: ${step}`),
        onBound: (b) => bounds.push(b),
      });
      progress.end();
      for (const b of bounds) io.stderr(`${warningLine(boundWarning(b))}\n`);
      writeFileSync(opts.out, html);
      io.stdout(`wrote ${opts.out} (${Math.ceil(Buffer.byteLength(html) / 1024)} KiB)\n`);
    });
}
