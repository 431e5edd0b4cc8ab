/**
 * `kube-netsim render hostports`: the nat rules the kubenet hostport manager (or the CNI portmap
 * plugin) writes for every pod with hostPorts on one node, plus, on request, the host sockets
 * held open and the kernel modules the configuration needs.
 */
import { Option, type Command } from "commander";
import {
  formatHostSocket,
  formatHostportSave,
  hostportRulesForNode,
  nodeModuleReport,
  type HostportImpl,
  type ModuleReport,
  type NodeHostports,
} from "../../hostports/index.js";
import { CliError } from "../exit.js";
import {
  addManifestOptions,
  addNodeOptions,
  loadClusterFromOptions,
  loadNodeEnvironmentFromOptions,
  type ManifestOptions,
  type NodeOptions,
} from "../load.js";
import { parseOutputFormat, renderData } from "../output.js";
import type { CliIO } from "../program.js";
import { startProgress } from "../progress.js";
import { warningLine, withRenderInputErrors } from "../render-errors.js";

type ReportPart = "sockets" | "modules";

interface HostportsOptions extends ManifestOptions, NodeOptions {
  readonly impl: HostportImpl;
  readonly report?: string;
  readonly output: string;
  readonly format: "restore" | "save";
  readonly natInterface: string;
  readonly networkName: string;
  readonly markMasqBit?: string;
  readonly snat: boolean;
}

function parseReport(value: string | undefined): ReportPart[] {
  if (value === undefined) return [];
  const parts = value
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  for (const p of parts)
    if (p !== "sockets" && p !== "modules")
      throw new CliError(
        `--report: unsupported value "${p}": supported values: "sockets", "modules"`,
      );
  return parts as ReportPart[];
}

function parseMarkBit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n > 31)
    throw new CliError(`--mark-masq-bit: "${value}" is not 0-31`);
  return n;
}

/** Options that only one implementation reads, by the implementation that reads them. */
const IMPL_OPTIONS: readonly {
  readonly key: string;
  readonly flag: string;
  readonly impl: HostportImpl;
}[] = [
  { key: "natInterface", flag: "--nat-interface", impl: "kubenet" },
  { key: "networkName", flag: "--network-name", impl: "portmap" },
  { key: "markMasqBit", flag: "--mark-masq-bit", impl: "portmap" },
  { key: "snat", flag: "--no-snat", impl: "portmap" },
];

/**
 * Every option given is honoured or refused: kube-proxy's configuration means nothing to the
 * hostport manager or portmap, an implementation's options mean nothing to the other one, and
 * JSON output holds both formats.
 */
function refuseUnusedOptions(opts: HostportsOptions, cmd: Command): void {
  const given = (key: string): boolean => cmd.getOptionValueSource(key) === "cli";
  if (opts.proxyConfig !== undefined)
    throw new CliError(
      "--proxy-config: render hostports does not read a KubeProxyConfiguration (the kubelet hostport manager and CNI portmap do not use kube-proxy's settings)",
    );
  for (const o of IMPL_OPTIONS)
    if (o.impl !== opts.impl && given(o.key))
      throw new CliError(`${o.flag}: only for --impl ${o.impl} (this is --impl ${opts.impl})`);
  if (opts.output === "json" && given("format"))
    throw new CliError(
      "--format: only for text output (--output json holds both restore and save)",
    );
}

export function formatModuleReport(r: ModuleReport): string[] {
  const lines = r.modules.map((m) => `${m.module}\t${m.category}\t${m.neededBy.join(", ")}`);
  for (const u of r.unmapped) lines.push(`?\tunmapped\t${u}`);
  lines.push(`sctp module needed: ${r.sctpModuleNeeded ? "yes" : "no"}`);
  return lines;
}

function familyText(f: NodeHostports["families"][number], format: "restore" | "save"): string {
  return format === "restore" ? f.restore : formatHostportSave(f);
}

function renderText(
  result: NodeHostports,
  format: "restore" | "save",
  report: readonly ReportPart[],
  modules: ModuleReport | undefined,
): string {
  const out: string[] = [];
  const many = result.families.length > 1;
  for (const f of result.families) {
    if (many) out.push(`# ${f.family}`);
    out.push(familyText(f, format).trimEnd());
  }
  // Reports are comments, so the output stays valid iptables-restore input.
  if (report.includes("sockets")) {
    out.push("# sockets: <family> <hostIP or *> <port> <protocol>");
    for (const s of result.sockets) out.push(`# ${formatHostSocket(s)}`);
  }
  if (report.includes("modules") && modules !== undefined) {
    out.push("# modules: <module> <category> <needed by>");
    for (const l of formatModuleReport(modules)) out.push(`# ${l}`);
  }
  return `${out.join("\n")}\n`;
}

export function registerRenderHostports(render: Command, io: CliIO): void {
  const cmd = render
    .command("hostports")
    .description(
      "nat rules of the kubenet hostport manager (or CNI portmap) for every pod with hostPorts on a node",
    );
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd
    .addOption(
      new Option("--impl <impl>", "hostport implementation")
        .choices(["kubenet", "portmap"])
        .default("kubenet"),
    )
    .option("--report <parts>", "also report sockets and/or modules (comma-separated)")
    .option("-o, --output <format>", "text or json", "text")
    .addOption(
      new Option(
        "--format <format>",
        "save: what iptables-save prints once they are loaded (the contract's default); restore: the rules as the component writes them (iptables-restore input)",
      )
        .choices(["restore", "save"])
        .default("save"),
    )
    .option("--nat-interface <name>", "kubenet: the pod bridge", "cbr0")
    .option("--network-name <name>", "portmap: the CNI network name", "cbr0")
    .option("--mark-masq-bit <bit>", "portmap: the masquerade mark bit (default 13)")
    .option("--no-snat", "portmap: snat false (no hairpin/localhost masquerade)")
    .addHelpText(
      "after",
      `
Examples:
  kube-netsim render hostports -f examples/sctp-hostport/ --node-env examples/sctp-hostport/node.yaml
  kube-netsim render hostports -f examples/sctp-hostport/ --node-env examples/sctp-hostport/node.yaml --impl portmap
  kube-netsim render hostports -f examples/sctp-hostport/ --node-env examples/sctp-hostport/node.yaml --report sockets,modules`,
    )
    .action((opts: HostportsOptions, command: Command) => {
      const format = parseOutputFormat(opts.output, ["text", "json"]);
      refuseUnusedOptions(opts, command);
      const report = parseReport(opts.report);
      const markMasqBit = parseMarkBit(opts.markMasqBit);
      const progress = startProgress(io, opts);
      const cluster = loadClusterFromOptions(opts, io, progress);
      const node = loadNodeEnvironmentFromOptions(opts, cluster);
      progress.phase("rendering hostport rules");
      const result = withRenderInputErrors(opts, cluster, () => {
        try {
          return hostportRulesForNode(cluster, node, {
            impl: opts.impl,
            natInterfaceName: opts.natInterface,
            portmap: {
              name: opts.networkName,
              snat: opts.snat,
              ...(markMasqBit !== undefined ? { markMasqBit } : {}),
            },
          });
        } finally {
          progress.end();
        }
      });
      for (const p of result.pods)
        if (p.error !== undefined)
          io.stderr(`${warningLine(`pod ${p.namespace}/${p.name} (${p.family}): ${p.error}`)}\n`);
      const modules = report.includes("modules") ? nodeModuleReport(result) : undefined;
      if (format === "json") {
        io.stdout(
          renderData(
            {
              impl: result.impl,
              node: result.nodeName,
              families: result.families.map((f) => ({
                family: f.family,
                restore: f.restore,
                save: formatHostportSave(f),
              })),
              pods: result.pods,
              ...(report.includes("sockets") ? { sockets: result.sockets } : {}),
              ...(modules !== undefined ? { modules } : {}),
            },
            "json",
          ),
        );
        return;
      }
      io.stdout(renderText(result, opts.format, report, modules));
    });
}
