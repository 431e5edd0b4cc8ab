/**
 * `kube-netsim policy check|matrix|diff|lint`: NetworkPolicy, AdminNetworkPolicy and
 * BaselineAdminNetworkPolicy verdicts, truth tables, verdict diffs and warnings.
 */
import { Option, type Command } from "commander";
import { makeCluster, type Cluster } from "../../model/cluster.js";
import { formatObjectRef, formatFieldPath } from "../../model/issue.js";
import { parsePortNumber, parseProtocol, type Protocol } from "../../net/port.js";
import { evaluatePolicy } from "../../policy/evaluate.js";
import { PolicyInputError } from "../../policy/endpoint.js";
import { formatExplanation } from "../../policy/explanation-text.js";
import { computePolicyMatrix, type MatrixOptions } from "../../policy/matrix.js";
import { formatMatrixGrid, matrixJson, matrixTsvLines } from "../../policy/matrix-format.js";
import { policyDiff, type PolicyDiffRow } from "../../policy/diff.js";
import { lintPolicies, type PolicyLintWarning } from "../../policy/lint.js";
import type { PolicyOptions } from "../../policy/options.js";
import { CliError, EXIT_CHECK_FAILED, EXIT_OK } from "../exit.js";
import { addManifestOptions, loadClusterFromOptions, type ManifestOptions } from "../load.js";
import { parseOutputFormat } from "../output.js";
import { policyMatrixHtml, policyMatrixSvg } from "../../report/matrix-pictures.js";
import type { CliIO } from "../program.js";

interface PolicyFlags {
  readonly selfTraffic: "allow" | "evaluate";
  readonly hostNetwork: "as-node" | "as-pod";
  readonly localNodeIngress: "allow" | "evaluate";
  readonly ipBlockPodIps: boolean;
}

function addPolicyFlags(cmd: Command): Command {
  return cmd
    .addOption(
      new Option("--self-traffic <mode>", "a pod connecting to its own IP (implementation-defined)")
        .choices(["allow", "evaluate"])
        .default("allow"),
    )
    .addOption(
      new Option(
        "--host-network <mode>",
        "how NetworkPolicy treats hostNetwork pods (implementation-defined)",
      )
        .choices(["as-node", "as-pod"])
        .default("as-node"),
    )
    .addOption(
      new Option("--local-node-ingress <mode>", "ingress from the pod's own node (kubelet probes)")
        .choices(["allow", "evaluate"])
        .default("allow"),
    )
    .option("--no-ip-block-pod-ips", "ipBlock peers never match pod IPs (np-guard's reading)");
}

function policyOptions(f: PolicyFlags): PolicyOptions {
  return {
    selfTraffic: f.selfTraffic,
    hostNetwork: f.hostNetwork,
    localNodeIngress: f.localNodeIngress,
    ipBlockMatchesPods: f.ipBlockPodIps,
  };
}

function parseList<T>(value: string, what: string, parse: (s: string) => T | undefined): T[] {
  return value.split(",").map((s) => {
    const v = parse(s.trim());
    if (v === undefined) throw new CliError(`${what}: invalid value "${s}"`);
    return v;
  });
}

const parsePorts = (v: string): number[] =>
  parseList(v, "--ports", (s) => {
    const n = parsePortNumber(s);
    return n !== undefined && n > 0 ? n : undefined;
  });
const parseProtocols = (v: string): Protocol[] => parseList(v, "--protocols", parseProtocol);

function withInputErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof PolicyInputError) throw new CliError(e.message);
    throw e;
  }
}

/** Writes many small strings in large chunks (TSV of big tables). */
function writeChunked(io: CliIO, lines: Iterable<string>): void {
  let buf = "";
  for (const l of lines) {
    buf += l;
    if (buf.length > 1 << 16) {
      io.stdout(buf);
      buf = "";
    }
  }
  if (buf !== "") io.stdout(buf);
}

function matrixOptions(
  o: { ports?: number[]; protocols?: Protocol[] } & PolicyFlags,
): MatrixOptions {
  return {
    ...policyOptions(o),
    ...(o.ports !== undefined ? { ports: o.ports } : {}),
    ...(o.protocols !== undefined ? { protocols: o.protocols } : {}),
  };
}

function registerCheck(policy: Command, io: CliIO): void {
  const cmd = policy
    .command("check")
    .description("is one connection allowed? exit 0 allowed, 1 denied; prints the explanation")
    .requiredOption("--from <endpoint>", "source: NAMESPACE/POD or an IP")
    .requiredOption("--to <endpoint>", "destination: NAMESPACE/POD or an IP")
    .requiredOption("--port <n>", "destination port (after Service translation)")
    .option("--protocol <p>", "TCP, UDP or SCTP", "TCP")
    .option("--output <format>", "text or json", "text");
  addManifestOptions(cmd);
  addPolicyFlags(cmd);
  cmd.action(
    (
      o: ManifestOptions &
        PolicyFlags & { from: string; to: string; port: string; protocol: string; output: string },
    ) => {
      const format = parseOutputFormat(o.output, ["text", "json"]);
      const port = parsePortNumber(o.port);
      if (port === undefined || port === 0)
        throw new CliError(`--port: invalid value "${o.port}": must be 1..65535`);
      const cluster = loadClusterFromOptions(o, io);
      const v = withInputErrors(() =>
        evaluatePolicy(
          cluster,
          { from: o.from, to: o.to, port, protocol: o.protocol },
          policyOptions(o),
        ),
      );
      if (format === "json") io.stdout(`${JSON.stringify(v.explanation, null, 2)}\n`);
      else io.stdout(formatExplanation(v.explanation));
      process.exitCode = v.allowed ? EXIT_OK : EXIT_CHECK_FAILED;
    },
  );
}

function registerMatrix(policy: Command, io: CliIO): void {
  const cmd = policy
    .command("matrix")
    .description(
      "truth table over every ordered pair of pods (self pairs included), per port and protocol",
    )
    .option(
      "--ports <list>",
      "destination ports, e.g. 80,81 (default: every declared containerPort)",
      parsePorts,
    )
    .option("--protocols <list>", "e.g. TCP,UDP,SCTP (default: all three)", parseProtocols)
    .option("--output <format>", "tsv, text (the e2e ./X grid), json, svg or html", "tsv");
  addManifestOptions(cmd);
  addPolicyFlags(cmd);
  cmd.action(
    (
      o: ManifestOptions &
        PolicyFlags & { ports?: number[]; protocols?: Protocol[]; output: string },
    ) => {
      // Pictures (src/report): the heat maps as an HTML page or a standalone SVG.
      const picture = o.output === "svg" || o.output === "html" ? o.output : undefined;
      const format = parseOutputFormat(picture !== undefined ? "tsv" : o.output, [
        "tsv",
        "text",
        "json",
      ]);
      const cluster = loadClusterFromOptions(o, io);
      if (picture !== undefined) {
        const draw = picture === "svg" ? policyMatrixSvg : policyMatrixHtml;
        io.stdout(draw(cluster, matrixOptions(o)));
        process.exitCode = EXIT_OK;
        return;
      }
      const m = computePolicyMatrix(cluster, matrixOptions(o));
      if (format === "tsv") writeChunked(io, matrixTsvLines(m));
      else if (format === "json") io.stdout(matrixJson(m));
      else io.stdout(formatMatrixGrid(m));
      process.exitCode = EXIT_OK;
    },
  );
}

/**
 * The "after" cluster: when the new files hold no Pods, the workloads (pods, namespaces, nodes)
 * come from the old files and only the policies from the new ones.
 */
function mergeAgainst(before: Cluster, after: Cluster): Cluster {
  if (after.pods.length > 0) return after;
  const declared = new Set(before.namespaces.map((n) => n.metadata?.name));
  return makeCluster({
    namespaces: [
      ...before.namespaces,
      ...after.namespaces.filter((n) => !declared.has(n.metadata?.name)),
    ],
    nodes: before.nodes,
    pods: before.pods,
    services: before.services,
    endpointSlices: before.endpointSlices,
    networkPolicies: after.networkPolicies,
    adminNetworkPolicies: after.adminNetworkPolicies,
    baselineAdminNetworkPolicies: after.baselineAdminNetworkPolicies,
  });
}

function diffText(rows: readonly PolicyDiffRow[]): string {
  const word = (b: boolean): string => (b ? "allowed" : "denied");
  if (rows.length === 0) return "no verdict changes\n";
  return (
    rows
      .map(
        (r) =>
          `${r.from} -> ${r.to} ${r.protocol}/${r.port}: ${word(r.before)} -> ${word(r.after)}\n`,
      )
      .join("") + `${rows.length} verdict change(s)\n`
  );
}

function registerDiff(policy: Command, io: CliIO): void {
  const cmd = policy
    .command("diff")
    .description(
      "connections whose verdict changes from the -f set to the --against set; exit 1 if any.\n" +
        "When the --against files hold no Pods, the pods, namespaces and nodes of -f are used.",
    )
    .requiredOption(
      "--against <path>",
      "the new manifests (repeatable)",
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option(
      "--ports <list>",
      "destination ports (default: every declared containerPort)",
      parsePorts,
    )
    .option("--protocols <list>", "default: TCP,UDP,SCTP", parseProtocols)
    .option("--output <format>", "text, tsv or json", "text");
  addManifestOptions(cmd);
  addPolicyFlags(cmd);
  cmd.action(
    (
      o: ManifestOptions &
        PolicyFlags & {
          against: string[];
          ports?: number[];
          protocols?: Protocol[];
          output: string;
        },
    ) => {
      const format = parseOutputFormat(o.output, ["text", "tsv", "json"]);
      const before = loadClusterFromOptions(o, io);
      const after = mergeAgainst(before, loadClusterFromOptions({ ...o, filename: o.against }, io));
      const rows = policyDiff(before, after, matrixOptions(o));
      if (format === "json") io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
      else if (format === "tsv")
        writeChunked(io, [
          "from\tto\tport\tprotocol\tbefore\tafter\n",
          ...rows.map(
            (r) => `${r.from}\t${r.to}\t${r.port}\t${r.protocol}\t${r.before}\t${r.after}\n`,
          ),
        ]);
      else io.stdout(diffText(rows));
      process.exitCode = rows.length > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
    },
  );
}

function lintLine(w: PolicyLintWarning): string {
  const path = w.path.length > 0 ? `${formatFieldPath(w.path)}: ` : "";
  return `${formatObjectRef(w.object)}: ${path}warning: ${w.message} [${w.code}]\n`;
}

function registerLint(policy: Command, io: CliIO): void {
  const cmd = policy
    .command("lint")
    .description(
      "warnings about policies: unserved named ports, equal ANP priorities, policies selecting nothing, ipBlocks covering pod IPs, shadowed ANP rules",
    )
    .option("--strict", "exit 1 when there is any warning")
    .option("--output <format>", "text or json", "text");
  addManifestOptions(cmd);
  addPolicyFlags(cmd);
  cmd.action((o: ManifestOptions & PolicyFlags & { strict?: boolean; output: string }) => {
    const format = parseOutputFormat(o.output, ["text", "json"]);
    const cluster = loadClusterFromOptions(o, io);
    const warnings = lintPolicies(cluster, policyOptions(o));
    if (format === "json") io.stdout(`${JSON.stringify(warnings, null, 2)}\n`);
    else io.stdout(warnings.length === 0 ? "no warnings\n" : warnings.map(lintLine).join(""));
    process.exitCode = o.strict === true && warnings.length > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  });
}

export function registerPolicy(program: Command, io: CliIO): void {
  const policy = program
    .command("policy")
    .description(
      "NetworkPolicy / AdminNetworkPolicy / BaselineAdminNetworkPolicy verdicts, truth tables, diffs and lint",
    );
  registerCheck(policy, io);
  registerMatrix(policy, io);
  registerDiff(policy, io);
  registerLint(policy, io);
}
