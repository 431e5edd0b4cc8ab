/**
 * `kube-netsim render nftables`: kube-proxy's nftables table for a node, as the knftables
 * fake's Dump (default; real `nft -f` loads it), as the transaction a first full sync sends to
 * `nft -f`, or as `nft list table` prints it once loaded. A dual-stack node prints the `ip`
 * table, then the `ip6` table.
 */
import { Option, type Command } from "commander";
import { renderNftables } from "../../proxiers/nftables/index.js";
import { writeNftablesDump } from "../../proxiers/nftables/render-nftables.js";
import type { MarkFormat } from "../../proxiers/nftables/settings.js";
import { syncSequence } from "../../proxiers/nftables/sync.js";
import { formatSyncSequence } from "../../proxiers/nftables/sync-format.js";
import { parseSyncInterval, readSequenceDir } from "./render-sequence.js";
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
  readonly sequence?: string;
  readonly syncInterval: number;
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
    .option(
      "--sequence <dir>",
      "one sync per state in DIR (entries named 01-*.yaml, 02-*/, ... in name order, each a whole cluster): each sync's transaction, partial syncs as kube-proxy does them",
    )
    .option(
      "--sync-interval <seconds>",
      "with --sequence: seconds between syncs (a state named like 05-x+0.5s.yaml says its own); stale chains are deleted once older than 1s",
      parseSyncInterval,
      30,
    )
    .addHelpText(
      "after",
      `
Examples:
  kube-netsim render nftables -f examples/sctp-service/ --node-env examples/sctp-service/node.yaml --proxy-config examples/sctp-service/proxy.yaml
  kube-netsim render nftables -f examples/sctp-service/ --node-env examples/sctp-service/node.yaml --format list
  kube-netsim render nftables --sequence states/ --node-env node.yaml --proxy-config proxy.yaml`,
    )
    .action((opts: NftablesOptions) => {
      if (opts.sequence !== undefined) {
        const states = readSequenceDir(opts.sequence, opts, io);
        const first = states[0];
        if (first === undefined) return;
        const syncs = syncSequence(states, {
          node: loadNodeEnvironmentFromOptions(opts, first.cluster),
          proxyConfig: loadProxyConfigFromOptions(opts, io),
          masqueradeMarkFormat: opts.markFormat,
          intervalSeconds: opts.syncInterval,
        });
        // Transactions unless a --format is given explicitly.
        const explicit = cmd.getOptionValueSource("format") === "cli";
        io.stdout(formatSyncSequence(syncs, explicit ? opts.format : "transaction"));
        return;
      }
      const cluster = loadClusterFromOptions(opts, io);
      const node = loadNodeEnvironmentFromOptions(opts, cluster);
      const proxyConfig = loadProxyConfigFromOptions(opts, io);
      const renderOpts = { node, proxyConfig, masqueradeMarkFormat: opts.markFormat };
      const bytes = io.stdoutBytes;
      if (opts.format === "dump" && bytes !== undefined) {
        // The Dump's bytes as they are made, never a typed table or one string (~44 MB for
        // 10,000 services × 10 endpoints); see docs/nftables-proxier.md.
        writeNftablesDump(cluster, renderOpts, piecesFor(bytes, io.stdoutBytesSync === true));
        return;
      }
      const r = renderNftables(cluster, renderOpts);
      io.stdout(
        opts.format === "dump" ? r.dump : opts.format === "transaction" ? r.transaction : r.list,
      );
    });
}

/**
 * `write` for pieces that are written over once handed out: as they are when stdout's writes
 * are synchronous (a regular file), else copied (a pipe's write may be queued).
 */
function piecesFor(write: (b: Uint8Array) => void, sync: boolean): (b: Uint8Array) => void {
  return sync ? write : (b) => write(b.slice());
}
