/**
 * `kube-netsim render ipvs`: the state the kube-proxy IPVS proxier programs on a node —
 * `ipvsadm-save -n` text, `ipset save` text, the iptables-restore payload and the addresses on
 * kube-ipvs0 — each section headed `# ipvs`, `# ipset`, `# iptables`, `# addresses`. With
 * `--only` a single section is printed without its heading, ready to pipe into
 * `ipvsadm-restore`, `ipset restore` or `iptables-restore`.
 */
import { Option, type Command } from "commander";
import { formatIpvsadmList } from "../../netfilter/ipvs/index.js";
import { renderIpvs, type IpvsRender } from "../../proxiers/ipvs/index.js";
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
import { parseOutputFormat, renderData } from "../output.js";
import type { CliIO } from "../program.js";
import { startProgress } from "../progress.js";
import { withRenderInputErrors } from "../render-errors.js";

type Section = "ipvs" | "ipset" | "iptables" | "ip6tables" | "addresses";

interface IpvsOptions extends ManifestOptions, NodeOptions {
  readonly only?: Section;
  readonly ipvsFormat: "save" | "list";
  readonly output: string;
}

/** The sections of a render, in the order interfaces.md gives them. */
export function ipvsSections(
  r: IpvsRender,
  ipvsFormat: "save" | "list" = "save",
): { name: Section; text: string }[] {
  const sections: { name: Section; text: string }[] = [
    { name: "ipvs", text: ipvsFormat === "save" ? r.ipvs : formatIpvsadmList(r.state.table) },
    { name: "ipset", text: r.ipset },
    { name: "iptables", text: r.iptables },
  ];
  // Dual-stack: the second family's payload is for ip6tables-restore.
  const second = r.state.families[1];
  if (second !== undefined) sections.push({ name: "ip6tables", text: second.iptables });
  sections.push({
    name: "addresses",
    text: r.addresses.map((a) => `${a}\n`).join(""),
  });
  return sections;
}

export function formatIpvsRender(
  r: IpvsRender,
  only?: Section,
  ipvsFormat: "save" | "list" = "save",
): string {
  const sections = ipvsSections(r, ipvsFormat);
  if (only !== undefined) {
    const s = sections.find((x) => x.name === only);
    if (s === undefined) throw new CliError(`--only ${only}: the node has a single IP family`);
    return s.text;
  }
  return sections.map((s) => `# ${s.name}\n${s.text}`).join("");
}

export function registerRenderIpvs(render: Command, io: CliIO): void {
  const cmd = render
    .command("ipvs")
    .description(
      "the kube-proxy IPVS proxier's state: ipvsadm-save, ipset save, iptables-restore input and kube-ipvs0 addresses",
    );
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd
    .addOption(
      new Option("--only <section>", "print one section only, without its heading").choices([
        "ipvs",
        "ipset",
        "iptables",
        "ip6tables",
        "addresses",
      ]),
    )
    .addOption(
      new Option("--ipvs-format <format>", "the IPVS table as `ipvsadm-save -n` or `ipvsadm -Ln`")
        .choices(["save", "list"])
        .default("save"),
    )
    .option("-o, --output <format>", "text or json", "text")
    .addHelpText(
      "after",
      `
Examples:
  kube-netsim render ipvs -f examples/sctp-nodeport/cluster.yaml --node-env examples/sctp-nodeport/node.yaml --proxy-config examples/sctp-nodeport/proxy-ipvs.yaml
  kube-netsim render ipvs -f examples/sctp-nodeport/cluster.yaml --node-env examples/sctp-nodeport/node.yaml --only ipset | ipset restore`,
    )
    .action((opts: IpvsOptions, command: Command) => {
      const format = parseOutputFormat(opts.output, ["text", "json"]);
      if (
        command.getOptionValueSource("ipvsFormat") === "cli" &&
        opts.only !== undefined &&
        opts.only !== "ipvs"
      )
        throw new CliError(`--ipvs-format: only shapes the ipvs section (--only ${opts.only})`);
      const progress = startProgress(io, opts);
      const cluster = loadClusterFromOptions(opts, io, progress);
      const node = loadNodeEnvironmentFromOptions(opts, cluster);
      const proxyConfig = loadProxyConfigFromOptions(opts, io);
      let result: IpvsRender;
      try {
        result = withRenderInputErrors(opts, cluster, () =>
          renderIpvs(cluster, { node, proxyConfig }),
        );
      } finally {
        progress.end();
      }
      if (format === "json") {
        const sections = ipvsSections(result, opts.ipvsFormat).filter(
          (s) => opts.only === undefined || s.name === opts.only,
        );
        io.stdout(
          renderData(
            Object.fromEntries(
              sections.map((s) => [s.name, s.name === "addresses" ? result.addresses : s.text]),
            ),
            "json",
          ),
        );
        return;
      }
      // Section by section: the whole text is never made one string (8.6 MB for 10,000
      // services × 10 endpoints) only to be encoded again.
      if (opts.only !== undefined) io.stdout(formatIpvsRender(result, opts.only, opts.ipvsFormat));
      else
        for (const s of ipvsSections(result, opts.ipvsFormat)) {
          io.stdout(`# ${s.name}\n`);
          io.stdout(s.text);
        }
    });
}
