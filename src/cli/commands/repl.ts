import type { Command } from "commander";
import type { Cluster } from "../../model/cluster.js";
import { makeCluster } from "../../model/cluster.js";
import type { CliCommandSpec } from "../../repl/cli-spec.js";
import type { NodeSettings } from "../../repl/diff-rules.js";
import { historyPath, startRepl } from "../../repl/repl.js";
import { CliError } from "../exit.js";
import { replErrorText } from "../render-errors.js";
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

interface ReplCommandOptions extends ManifestOptions, NodeOptions {}

/** The CLI's command tree as the plain data the REPL completes and dispatches with. */
export function cliSpecs(cmd: Command): CliCommandSpec[] {
  return cmd.commands.map((c) => ({
    name: c.name(),
    summary: c.description(),
    options: [
      ...c.options.flatMap((o) => [o.short, o.long].filter((x): x is string => x !== undefined)),
      "--help",
    ],
    valueOptions: c.options
      .filter((o) => o.required || o.optional)
      .flatMap((o) => [o.short, o.long].filter((x): x is string => x !== undefined)),
    subcommands: cliSpecs(c),
  }));
}

function gatesText(argv: readonly string[]): string | undefined {
  const texts: string[] = [];
  argv.forEach((w, i) => {
    if (w === "--feature-gates" && argv[i + 1] !== undefined) texts.push(argv[i + 1] as string);
    else if (w.startsWith("--feature-gates=")) texts.push(w.slice("--feature-gates=".length));
  });
  return texts.length > 0 ? texts.join(",") : undefined;
}

function gatesOption(argv: readonly string[]): { featureGatesText?: string } {
  const text = gatesText(argv);
  return text === undefined ? {} : { featureGatesText: text };
}

/**
 * Whether the REPL refuses to start over its node options: a --node-env file that does not
 * load, or a --node the manifests do not declare, is the user's mistake to hear about now, not
 * at the first diff. No node at all is fine (policy commands need none), and --node with no
 * manifests yet is too (the Node may come with a later apply).
 */
export function startupNodeError(
  opts: NodeOptions,
  hasManifests: boolean,
  first: NodeSettings | { readonly error: string },
): string | undefined {
  if (!("error" in first)) return undefined;
  if (opts.nodeEnv !== undefined || (opts.node !== undefined && hasManifests)) return first.error;
  return undefined;
}

export function registerRepl(program: Command, io: CliIO): void {
  const cmd = program
    .command("repl")
    .description("interactive shell: edit the cluster (what-if), diff, trace, render, policy");
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd
    .addHelpText(
      "after",
      `
Every kube-netsim command works as a line, on the session's objects and node. Edits (get,
describe, set, label, endpoints, apply, delete, edit) are validated like the API server's; undo,
redo, history, checkpoint, reset, diff and save manage the session. Type help in the REPL.

Example:
  $ kube-netsim repl -f examples/sctp-service/cluster.yaml --node-env examples/sctp-service/node.yaml \\
      --proxy-config examples/sctp-service/proxy.yaml
  kube-netsim> trace --proto sctp --src 203.0.113.9 --dst 192.168.0.10 --dport 30999
  kube-netsim> set svc default/sctp-echo spec.externalTrafficPolicy=Local
  kube-netsim> diff
  kube-netsim> undo`,
    )
    .action(async (opts: ReplCommandOptions) => {
      const run = io.run;
      if (run === undefined) throw new CliError("repl: no command runner (internal)");
      const files = opts.filename ?? [];
      const cluster: Cluster =
        files.length > 0 ? loadClusterFromOptions(opts, io) : makeCluster({});
      const proxyConfig = loadProxyConfigFromOptions(opts, io);
      const settings = (c: Cluster): NodeSettings | { error: string } => {
        if (opts.nodeEnv === undefined && opts.node === undefined)
          return { error: "no node given (start the REPL with --node-env FILE or --node NAME)" };
        try {
          return { node: loadNodeEnvironmentFromOptions(opts, c), proxyConfig };
        } catch (e) {
          return { error: e instanceof Error ? e.message : String(e) };
        }
      };
      const refused = startupNodeError(opts, files.length > 0, settings(cluster));
      if (refused !== undefined) throw new CliError(refused);
      await startRepl({
        input: process.stdin,
        output: process.stdout,
        terminal: process.stdin.isTTY,
        cluster,
        session: {
          files,
          ...(opts.nodeEnv !== undefined ? { nodeEnv: opts.nodeEnv } : {}),
          ...(opts.node !== undefined ? { node: opts.node } : {}),
          ...(opts.proxyConfig !== undefined ? { proxyConfig: opts.proxyConfig } : {}),
          ...gatesOption(process.argv),
          featureGates: opts.featureGates ?? {},
        },
        settings,
        cli: cliSpecs(program),
        run,
        errorText: replErrorText,
        readStdin: io.readStdin,
        historyFile: historyPath(),
      });
    });
}
