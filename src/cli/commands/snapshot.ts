/**
 * `kube-netsim snapshot collect --out DIR`: a read-only copy of this node's networking state.
 * `kube-netsim snapshot diff DIR -f MANIFESTS --proxy-config F [--node NAME]`: drift between
 * what kube-proxy should have written for the manifests and what the node has; exit 1 on drift.
 */
import type { Command } from "commander";
import { collectSnapshot } from "../../backends/snapshot/collect.js";
import { diffSnapshot, formatSnapshotDiff } from "../../backends/snapshot/diff.js";
import { nodeOfSnapshot } from "../../backends/snapshot/node.js";
import { readSnapshot } from "../../backends/snapshot/read.js";
import { EXIT_CHECK_FAILED } from "../exit.js";
import {
  addManifestOptions,
  loadClusterFromOptions,
  loadProxyConfigFromOptions,
  type ManifestOptions,
} from "../load.js";
import { parseOutputFormat, renderData } from "../output.js";
import type { CliIO } from "../program.js";

interface CollectOptions {
  readonly out: string;
  readonly netns?: string;
  readonly output: string;
}

interface DiffOptions extends ManifestOptions {
  readonly proxyConfig?: string;
  readonly node?: string;
  readonly output: string;
}

export function registerSnapshot(program: Command, io: CliIO): void {
  const snapshot = program
    .command("snapshot")
    .description(
      "a real node's networking state: collect it (read-only), diff it against manifests",
    );
  snapshot
    .command("collect")
    .description(
      "copy this node's iptables/ipset/IPVS/nftables rules, addresses, routes, modules and sysctls (read-only)",
    )
    .requiredOption("--out <dir>", "directory to write the snapshot to")
    .option("--netns <name>", "collect inside this network namespace (ip netns exec)")
    .option("-o, --output <format>", "text or json (the manifest)", "text")
    .addHelpText(
      "after",
      `
Runs only read-only commands; a tool that is not installed is noted in manifest.json, not fatal.

Example (on a node, as root):
  kube-netsim snapshot collect --out /tmp/node-a`,
    )
    .action((opts: CollectOptions) => {
      const format = parseOutputFormat(opts.output, ["text", "json"]);
      const m = collectSnapshot(opts.out, opts.netns !== undefined ? { netns: opts.netns } : {});
      if (format === "json") {
        io.stdout(renderData(m, "json"));
        return;
      }
      for (const i of m.items)
        io.stdout(
          `${i.status.padEnd(7)} ${i.name}${i.file !== undefined ? ` -> ${i.file}` : ""}${i.note !== undefined ? ` (${i.note})` : ""}\n`,
        );
      io.stdout(`snapshot of ${m.hostname} (kernel ${m.kernel}) in ${opts.out}\n`);
    });
  const diff = snapshot
    .command("diff")
    .description(
      "drift between what kube-proxy should have written and what the node has (exit 1 on drift)",
    )
    .argument("<dir>", "a directory written by `snapshot collect`")
    .option("--proxy-config <file>", "KubeProxyConfiguration file (default: kube-proxy's defaults)")
    .option("--node <name>", "the node's name (default: the snapshot's hostname)")
    .option("-o, --output <format>", "text or json", "text");
  addManifestOptions(diff);
  diff.addHelpText(
    "after",
    `
Example:
  kube-netsim snapshot diff /tmp/node-a -f cluster/ --proxy-config kube-proxy.yaml --node node-a`,
  );
  diff.action((dir: string, opts: DiffOptions) => {
    const format = parseOutputFormat(opts.output, ["text", "json"]);
    const cluster = loadClusterFromOptions(opts, io);
    const proxyConfig = loadProxyConfigFromOptions(opts, io);
    // A snapshot that is not one, or whose files do not parse, is bad input: thrown as it is.
    const snap = readSnapshot(dir);
    const nodeName = opts.node ?? (proxyConfig.hostnameOverride || snap.manifest.hostname);
    const node = nodeOfSnapshot(snap, cluster, nodeName);
    const d = diffSnapshot(snap, cluster, { proxyConfig, node });
    io.stdout(format === "json" ? renderData(d, "json") : formatSnapshotDiff(d));
    if (!d.inSync) process.exitCode = EXIT_CHECK_FAILED;
  });
}
