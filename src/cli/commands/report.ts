/**
 * `kube-netsim report -f ... [--node-env F] [--proxy-config F] --out FILE.html`: the
 * self-contained HTML report (src/report). Progress goes to stderr when it is a terminal.
 */
import { startProgress } from "../progress.js";
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { parsePortNumber, parseProtocol, type Protocol } from "../../net/index.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { renderReport } from "../../report/report.js";
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
      // The CLI's one progress line (a terminal only, never with -q), as validate and render use it.
      const progress = startProgress(io, opts);
      const html = renderReport(cluster, {
        ...(node !== undefined ? { node } : {}),
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
