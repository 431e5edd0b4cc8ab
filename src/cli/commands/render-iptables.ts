/**
 * `kube-netsim render iptables`: kube-proxy's iptables-restore input for a node (default), or
 * what iptables-save prints once it is loaded (`--format save`, built-in jumps included).
 */
import { Option, type Command } from "commander";
import type { IPFamily } from "../../net/index.js";
import { renderIptables } from "../../proxiers/iptables/index.js";
import type { MasqueradeMarkFormat } from "../../proxiers/iptables/render-restore.js";
import { syncIptablesSequence } from "../../proxiers/iptables/sync.js";
import { formatIptablesSyncSequence } from "../../proxiers/iptables/sync-format.js";
import { parseSyncInterval, readSequenceDir } from "./render-sequence.js";
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
import { parseOutputFormat, renderData, type OutputFormat } from "../output.js";
import { fstatSync } from "node:fs";
import { SpillFiles } from "../spill-file.js";
import type { CliIO } from "../program.js";
import { startProgress } from "../progress.js";
import { withRenderInputErrors } from "../render-errors.js";

interface IptablesOptions extends ManifestOptions, NodeOptions {
  readonly format: "restore" | "save";
  readonly family?: IPFamily;
  readonly markFormat: MasqueradeMarkFormat;
  readonly output: string;
  readonly sequence?: string;
  readonly syncInterval: number;
}

export function registerRenderIptables(render: Command, io: CliIO): void {
  const cmd = render
    .command("iptables")
    .description(
      "kube-proxy's iptables rules for a node (iptables-restore input or iptables-save)",
    );
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd
    .addOption(
      new Option(
        "--format <format>",
        "restore: the iptables-restore input kube-proxy writes; save: iptables-save once loaded",
      )
        .choices(["restore", "save"])
        .default("restore"),
    )
    .addOption(
      new Option("--family <family>", "only this IP family of a dual-stack node").choices([
        "IPv4",
        "IPv6",
      ]),
    )
    .addOption(
      new Option(
        "--mark-format <style>",
        "masquerade mark: short (0x4000, as upstream tests) or padded (0x00004000, as kube-proxy)",
      )
        .choices(["short", "padded"])
        .default("short"),
    )
    .option("-o, --output <format>", "text or json", "text")
    .option(
      "--sequence <dir>",
      "one sync per state in DIR (entries named 01-*.yaml, 02-*/, ... in name order, each a whole cluster): each sync's restore input, partial syncs as kube-proxy does them",
    )
    .option(
      "--sync-interval <seconds>",
      "with --sequence: seconds between syncs (a state named like 05-x+0.5s.yaml says its own)",
      parseSyncInterval,
      30,
    )
    .addHelpText(
      "after",
      `
A dual-stack node prints one section per family, each headed by a "# IPv4" / "# IPv6" comment.

Examples:
  kube-netsim render iptables -f examples/sctp-service/ --node-env examples/sctp-service/node.yaml --proxy-config examples/sctp-service/proxy.yaml
  kube-netsim render iptables -f examples/sctp-service/ --node-env examples/sctp-service/node.yaml --format save`,
    )
    .action((opts: IptablesOptions) => {
      const output = parseOutputFormat(opts.output, ["text", "json"]);
      if (opts.sequence !== undefined) {
        const states = readSequenceDir(opts.sequence, opts, io);
        const first = states[0];
        if (first === undefined) return;
        const node = loadNodeEnvironmentFromOptions(opts, first.cluster);
        const syncs = syncIptablesSequence(states, {
          node:
            opts.family === undefined
              ? node
              : { ...node, ipFamilies: node.ipFamilies.filter((f) => f === opts.family) },
          proxyConfig: loadProxyConfigFromOptions(opts, io),
          masqueradeMarkFormat: opts.markFormat,
          intervalSeconds: opts.syncInterval,
        });
        io.stdout(
          output === "json" ? renderData({ syncs }, "json") : formatIptablesSyncSequence(syncs),
        );
        return;
      }
      const progress = startProgress(io, opts);
      const cluster = loadClusterFromOptions(opts, io, progress);
      const node = loadNodeEnvironmentFromOptions(opts, cluster);
      const proxyConfig = loadProxyConfigFromOptions(opts, io);
      if (opts.family !== undefined && !node.ipFamilies.includes(opts.family))
        throw new CliError(
          `--family ${opts.family}: the node's families are ${node.ipFamilies.join(", ")}`,
        );
      progress.phase("rendering iptables rules");
      const restoreBytes = opts.format === "restore" && output === "text" && io.stdoutBytes;
      const spills = restoreBytes ? spillFilesForStdout() : undefined;
      try {
        const result = withRenderInputErrors(opts, cluster, () => {
          try {
            return renderIptables(cluster, {
              node,
              proxyConfig,
              masqueradeMarkFormat: opts.markFormat,
              // The restore text is all this prints: no typed rules are needed.
              restoreOnly: opts.format === "restore",
              ...(spills === undefined ? {} : { restoreSpill: spills.make }),
            });
          } finally {
            progress.end();
          }
        });
        printIptables(result, opts, output, io);
      } finally {
        spills?.close();
      }
    });
}

/**
 * Temporary files to keep a large restore text in until it is printed (spill-file.ts), when
 * stdout is a regular file: writes to it are synchronous, so the pieces handed out from one
 * reused read buffer are written before the next is read (a pipe's writes may be queued). None
 * when no temporary file can be made.
 */
function spillFilesForStdout(): SpillFiles | undefined {
  try {
    if (!fstatSync(1).isFile()) return undefined;
    const files = new SpillFiles();
    // One made (and closed) here: a temporary directory that cannot be written is found before
    // any rule is written, and the text is then kept in memory.
    files.make();
    files.close();
    return files;
  } catch {
    return undefined;
  }
}

function printIptables(
  result: ReturnType<typeof renderIptables>,
  opts: IptablesOptions,
  output: OutputFormat,
  io: CliIO,
): void {
  const families = result.families.filter(
    (f) => opts.family === undefined || f.family === opts.family,
  );
  if (output === "json") {
    io.stdout(
      renderData(
        {
          families: families.map((f) => ({
            family: f.family,
            [opts.format]: opts.format === "restore" ? f.restore : f.save,
          })),
        },
        "json",
      ),
    );
    return;
  }
  const many = families.length > 1;
  const write = io.stdoutBytes;
  if (opts.format === "restore" && write !== undefined) {
    // Bytes as the builder keeps them: the text is never made one string (~31 MB for
    // 10,000 services × 10 endpoints) and encoded again.
    for (const f of families) {
      if (many) write(Buffer.from(`# ${f.family}\n`, "utf8"));
      f.writeRestore(write);
    }
    return;
  }
  const parts = families.map(
    (f) => `${many ? `# ${f.family}\n` : ""}${opts.format === "restore" ? f.restore : f.save}`,
  );
  io.stdout(parts.join(""));
}
