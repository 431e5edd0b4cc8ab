/**
 * `kube-netsim report -f ... [--node-env F] [--proxy-config F] [--services LIST | --max-services N]
 * --out FILE.html`: the self-contained HTML report (src/report). Progress goes to stderr when it
 * is a terminal; a warning there when the bound left Services out of the chains and traces.
 */
import { startProgress } from "../progress.js";
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { parsePortNumber, parseProtocol, type Protocol } from "../../net/index.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { renderReport } from "../../report/report.js";
import {
  DEFAULT_MAX_SERVICES,
  selectServices,
  unknownServices,
  type ServiceSelectionOptions,
} from "../../report/service-selection.js";
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

/** `--services` and `--max-services` as the report's options, checked against the cluster. */
function serviceOptions(cluster: Cluster, opts: ReportCommandOptions): ServiceSelectionOptions {
  if (opts.services !== undefined && opts.maxServices !== undefined)
    throw new CliError("--services and --max-services: give one or the other");
  if (opts.services !== undefined) {
    const names = opts.services.split(",").map((s) => s.trim());
    const malformed = names.find((n) => !/^[^/\s]+\/[^/\s]+$/.test(n));
    if (malformed !== undefined)
      throw new CliError(`--services: invalid value "${malformed}" (expected NAMESPACE/NAME)`);
    const unknown = unknownServices(cluster, names);
    if (unknown.length > 0)
      throw new CliError(`--services: no Service ${unknown.join(", ")} in the manifests`);
    return { services: names };
  }
  if (opts.maxServices === undefined) return {};
  if (opts.maxServices === "all") return { maxServices: Infinity };
  const n = /^[1-9][0-9]{0,8}$/.test(opts.maxServices) ? Number(opts.maxServices) : undefined;
  if (n === undefined)
    throw new CliError(
      `--max-services: invalid value "${opts.maxServices}" (expected a positive integer or all)`,
    );
  return { maxServices: n };
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
      const chosen = serviceOptions(cluster, opts);
      if (node !== undefined) {
        const selection = selectServices(cluster, chosen);
        if (selection.bounded)
          io.stderr(
            `${warningLine(`report: chains and traces of ${selection.services.length} of ${selection.total} Services (the first by namespace/name); --services or --max-services for others`)}\n`,
          );
      }
      // The CLI's one progress line (a terminal only, never with -q), as validate and render use it.
      const progress = startProgress(io, opts);
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
      });
      progress.end();
      writeFileSync(opts.out, html);
      io.stdout(`wrote ${opts.out} (${Math.ceil(Buffer.byteLength(html) / 1024)} KiB)\n`);
    });
}
