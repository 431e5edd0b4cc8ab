/**
 * `kube-netsim verify`: renders the node's scenario from manifests, runs probes (a TSV file, or
 * the automatic set) on a backend and on the simulator, and prints the agreement table; exit 1
 * on any disagreement. A skipped probe (a capability this machine lacks) is listed with its
 * reason and is not a disagreement.
 */
import { Option, type Command } from "commander";
import { autoProbes } from "../../backends/auto-probes.js";
import type { Backend, Probe, Scenario } from "../../backends/backend.js";
import { layoutOf, resolveSource, ScenarioError } from "../../backends/layout.js";
import { netnsBackend, type IptablesVariant } from "../../backends/netns/backend.js";
import { scenarioOfCluster } from "../../backends/scenario-of-cluster.js";
import { simulatorBackend } from "../../backends/simulator/backend.js";
import { verifyProbes, type VerifyResult } from "../../backends/verify.js";
import { joinHostPort } from "../../net/index.js";
import { CliError, EXIT_CHECK_FAILED } from "../exit.js";
import {
  addManifestOptions,
  addNodeOptions,
  loadClusterFromOptions,
  loadNodeEnvironmentFromOptions,
  loadProxyConfigFromOptions,
  type ManifestOptions,
  type NodeOptions,
} from "../load.js";
import { parseOutputFormat, renderData } from "../output.js";
import type { CliIO } from "../program.js";
import { startProgress } from "../progress.js";
import { readText } from "../read-text.js";

interface VerifyOptions extends ManifestOptions, NodeOptions {
  readonly backend: "simulator" | "netns";
  readonly probes?: string;
  readonly auto?: boolean;
  readonly iptables: IptablesVariant;
  readonly timeout: string;
  readonly output: string;
}

const PROBE_COLUMNS = ["protocol", "from", "to", "port"] as const;

/**
 * A probes TSV: header naming protocol, from, to, port (sourcePort optional); `#` comments.
 * Problems are `ScenarioError`s at their line. With the scenario, each probe's source is also
 * resolved on its node here (a pod that is not on it, an address family it lacks), so that
 * those problems too are reported at their line, before anything runs.
 */
export function parseProbesTsv(text: string, file: string, scenario?: Scenario): Probe[] {
  const layout = scenario !== undefined ? layoutOf(scenario) : undefined;
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t").map((h) => h.trim());
  for (const c of PROBE_COLUMNS)
    if (!header.includes(c))
      throw new ScenarioError(
        `the header has no "${c}" column (need ${PROBE_COLUMNS.join(", ")})`,
        { source: { file, line: 1 } },
      );
  const probes: Probe[] = [];
  lines.slice(1).forEach((line, i) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const at = { source: { file, line: i + 2 } };
    const cells = line.split("\t").map((c) => c.trim());
    if (cells.length > header.length)
      throw new ScenarioError(`${cells.length} fields, the header has ${header.length}`, at);
    const row = Object.fromEntries(header.map((h, k) => [h, cells[k] ?? ""]));
    const protocol = (row.protocol ?? "").toLowerCase();
    if (protocol !== "tcp" && protocol !== "udp" && protocol !== "sctp")
      throw new ScenarioError(`protocol "${row.protocol}": expected tcp, udp or sctp`, at);
    const port = (what: string, v: string | undefined): number => {
      if (v === undefined || !/^[0-9]{1,5}$/.test(v) || Number(v) > 65535 || Number(v) === 0)
        throw new ScenarioError(`${what} "${v ?? ""}" is not a port number (1-65535)`, at);
      return Number(v);
    };
    if ((row.from ?? "") === "") throw new ScenarioError(`from is empty`, at);
    if ((row.to ?? "") === "") throw new ScenarioError(`to is empty`, at);
    const probe: Probe = {
      protocol: protocol,
      from: row.from!,
      to: row.to!,
      port: port("port", row.port),
      ...(row.sourcePort !== undefined && row.sourcePort !== ""
        ? { sourcePort: port("sourcePort", row.sourcePort) }
        : {}),
    };
    if (scenario !== undefined && layout !== undefined) {
      try {
        resolveSource(scenario, layout, probe);
      } catch (e) {
        if (e instanceof ScenarioError && e.issues.every((i) => i.source === undefined))
          throw new ScenarioError(e.issues.map((i) => i.message).join("; "), at);
        throw e;
      }
    }
    probes.push(probe);
  });
  return probes;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

export function formatVerifyText(r: VerifyResult): string {
  const head = ["#", "protocol", "from", "to", "predicted", "observed", "agreement"];
  const rows = r.rows.map((row, i) => [
    String(i + 1),
    row.probe.protocol,
    row.probe.from,
    joinHostPort(row.probe.to, row.probe.port),
    row.predicted,
    row.note !== undefined ? `${row.observed} (${row.note})` : row.observed,
    row.agreement,
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, k) => (k === cells.length - 1 ? c : pad(c, widths[k]!))).join("  ");
  const s = r.summary;
  return [
    line(head),
    ...rows.map(line),
    `verify ${s.backend}: ${s.probes} probes, ${s.agreed} agree, ${s.disagreed} disagree, ${s.skipped} skipped`,
    "",
  ].join("\n");
}

function backendOf(opts: VerifyOptions): Backend {
  const timeoutMs = Number(opts.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new CliError(`--timeout "${opts.timeout}": expected milliseconds (a positive integer)`);
  return opts.backend === "netns"
    ? netnsBackend({ iptables: opts.iptables, timeoutMs })
    : simulatorBackend();
}

export function registerVerify(program: Command, io: CliIO): void {
  const cmd = program
    .command("verify")
    .description(
      "run probes on a backend and on the simulator; an agreement table (exit 1 on any disagreement)",
    )
    .addOption(
      new Option("--backend <name>", "where the probes run")
        .choices(["simulator", "netns"])
        .default("simulator"),
    )
    .option(
      "--probes <file.tsv>",
      "probes: TSV with protocol, from (ns/pod|node|external|IP), to, port [, sourcePort]",
    )
    .option(
      "--auto",
      "every service port from a pod, the node and an external client; every NodePort; policy pod pairs",
    )
    .addOption(
      new Option("--iptables <variant>", "netns: which iptables-restore loads the rules")
        .choices(["default", "nft", "legacy"])
        .default("default"),
    )
    .option("--timeout <ms>", "netns: how long a probe waits before it counts as dropped", "1000")
    .option("-o, --output <format>", "text or json", "text");
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd.addHelpText(
    "after",
    `
Examples:
  kube-netsim verify -f examples/nodeport-loadbalancer/cluster.yaml --node-env examples/nodeport-loadbalancer/node.yaml \\
      --proxy-config examples/nodeport-loadbalancer/proxy.yaml --backend netns --auto
  kube-netsim verify -f examples/sctp-service/ --node-env examples/sctp-service/node.yaml --probes probes.tsv -o json`,
  );
  cmd.action(async (opts: VerifyOptions) => {
    const format = parseOutputFormat(opts.output, ["text", "json"]);
    if ((opts.probes !== undefined) === (opts.auto === true))
      throw new CliError("give either --probes FILE.tsv or --auto (one of them)");
    const backend = backendOf(opts);
    const progress = startProgress(io, opts);
    const cluster = loadClusterFromOptions(opts, io, progress);
    const node = loadNodeEnvironmentFromOptions(opts, cluster);
    const proxyConfig = loadProxyConfigFromOptions(opts, io);
    let result: VerifyResult;
    try {
      const scenario = scenarioOfCluster(cluster, { node, proxyConfig });
      const probes =
        opts.probes !== undefined
          ? parseProbesTsv(readText(opts.probes, "--probes"), opts.probes, scenario)
          : autoProbes(cluster, scenario, { proxyConfig });
      result = await verifyProbes(backend, scenario, probes, progress);
    } finally {
      progress.end();
    }
    io.stdout(
      format === "json"
        ? renderData(
            {
              summary: result.summary,
              rows: result.rows.map((r) => ({
                probe: r.probe,
                predicted: r.predicted,
                observed: r.observed,
                agreement: r.agreement,
                ...(r.note !== undefined ? { note: r.note } : {}),
                observation: r.observation,
                outcomes: r.prediction.outcomes.map((o) => ({
                  verdict: o.verdict,
                  ...(o.destination !== undefined ? { destination: o.destination } : {}),
                  masquerade: o.masquerade,
                  ...(o.source !== undefined ? { source: o.source } : {}),
                  probability: o.probability,
                })),
              })),
            },
            "json",
          )
        : formatVerifyText(result),
    );
    if (result.summary.disagreed > 0) process.exitCode = EXIT_CHECK_FAILED;
  });
}
