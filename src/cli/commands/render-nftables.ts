/**
 * `kube-netsim render nftables`: kube-proxy's nftables table for a node, as the knftables
 * fake's Dump (default; real `nft -f` loads it), as the transaction a first full sync sends to
 * `nft -f`, or as `nft list table` prints it once loaded. A dual-stack node prints the `ip`
 * table, then the `ip6` table.
 */
import { Option, type Command } from "commander";
import { renderNftables } from "../../proxiers/nftables/index.js";
import type { MarkFormat } from "../../proxiers/nftables/settings.js";
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

interface NftablesOptions extends ManifestOptions, NodeOptions {
  readonly format: "dump" | "transaction" | "list";
  readonly markFormat: MarkFormat;
}

export function registerRenderNftables(render: Command, io: CliIO): void {
  const cmd = render
    .command("nftables")
    .description(
      "kube-proxy's nftables table for a node (knftables dump, transaction or nft list)",
    );
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd
    .addOption(
      new Option(
        "--format <format>",
        "dump: the knftables fake's Dump (nft -f loads it); transaction: what kube-proxy sends to nft -f; list: nft list table once loaded",
      )
        .choices(["dump", "transaction", "list"])
        .default("dump"),
    )
    .addOption(
      new Option(
        "--mark-format <style>",
        "masquerade mark: short (0x4000, as upstream tests) or padded (0x00004000, as kube-proxy)",
      )
        .choices(["short", "padded"])
        .default("short"),
    )
    .addHelpText(
      "after",
      `
Examples:
  kube-netsim render nftables -f examples/sctp-service/ --node-env examples/sctp-service/node.yaml --proxy-config examples/sctp-service/proxy.yaml
  kube-netsim render nftables -f examples/sctp-service/ --node-env examples/sctp-service/node.yaml --format list`,
    )
    .action((opts: NftablesOptions) => {
      const cluster = loadClusterFromOptions(opts, io);
      const node = loadNodeEnvironmentFromOptions(opts, cluster);
      const proxyConfig = loadProxyConfigFromOptions(opts, io);
      const r = renderNftables(cluster, {
        node,
        proxyConfig,
        masqueradeMarkFormat: opts.markFormat,
      });
      io.stdout(
        opts.format === "dump" ? r.dump : opts.format === "transaction" ? r.transaction : r.list,
      );
    });
}
