/**
 * `kube-netsim policy check|matrix|diff|lint|convert`: NetworkPolicy, AdminNetworkPolicy,
 * BaselineAdminNetworkPolicy and ClusterNetworkPolicy verdicts, truth tables, verdict diffs,
 * warnings, and the v1alpha1 -> v1alpha2 migration.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Option, type Command } from "commander";
import { parse as parseYaml, YAMLError } from "yaml";
import { makeCluster, objectKey, type Cluster } from "../../model/cluster.js";
import { positionOf } from "../../model/field-positions.js";
import {
  formatObjectRef,
  formatFieldPath,
  inputIssue,
  ValidationError,
} from "../../model/issue.js";
import { parsePortNumber, parseProtocol, type Protocol } from "../../net/port.js";
import { evaluatePolicy, toCompiled } from "../../policy/evaluate.js";
import { formatExplanation } from "../../policy/explanation-text.js";
import {
  computePolicyMatrix,
  matrixProbes,
  type MatrixOptions,
  type PolicyMatrix,
} from "../../policy/matrix.js";
import { startProgress } from "../progress.js";
import { formatMatrixGrid, matrixJson, matrixTsvLines } from "../../policy/matrix-format.js";
import { policyDiff, type PolicyDiffRow } from "../../policy/diff.js";
import { lintPolicies, type PolicyLintWarning } from "../../policy/lint.js";
import type { PolicyOptions } from "../../policy/options.js";
import { parseDnsMap, type DnsMap } from "../../policy/dns-map.js";
import { convertToV1alpha2 } from "../../policy/convert.js";
import type { MatrixCell } from "../../policy/matrix.js";
import { readText } from "../read-text.js";
import { CliError, EXIT_CHECK_FAILED, EXIT_OK } from "../exit.js";
import { addManifestOptions, loadClusterFromOptions, type ManifestOptions } from "../load.js";
import { parseOutputFormat, renderData } from "../output.js";
import { policyMatrixHtml, policyMatrixSvg } from "../../report/matrix-pictures.js";
import type { CliIO } from "../program.js";

/** `policy check` exit code when the verdict depends on unresolved domainNames. */
export const EXIT_POLICY_UNKNOWN = 3;

interface PolicyFlags {
  readonly selfTraffic: "allow" | "evaluate";
  readonly hostNetwork: "as-node" | "as-pod";
  readonly localNodeIngress: "allow" | "evaluate";
  readonly ipBlockPodIps: boolean;
  readonly dnsMap?: string;
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
    .option("--no-ip-block-pod-ips", "ipBlock peers never match pod IPs (np-guard's reading)")
    .option(
      "--dns-map <file>",
      "YAML map of DNS names to IPs for domainNames peers (without it such verdicts are unknown)",
    );
}

/** Reads `--dns-map`: a YAML mapping `name: [ip, ...]`; problems are bad input. */
function readDnsMap(file: string): DnsMap {
  let value: unknown;
  const text = readText(file, "--dns-map");
  try {
    value = parseYaml(text);
  } catch (e) {
    if (!(e instanceof YAMLError)) throw e;
    // The YAML error at its position; its message without yaml's own " at line L, column C".
    const at = e.linePos?.[0];
    const message = `YAML syntax error: ${e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`;
    throw new ValidationError([
      inputIssue("yaml-syntax", message, {
        source: { file, line: at?.line ?? 1, ...(at !== undefined ? { col: at.col } : {}) },
      }),
    ]);
  }
  const { map, problems } = parseDnsMap(value);
  // One problem a line (the map's own words name the entry: `name[0]: not an IP address`).
  if (problems.length > 0)
    throw new ValidationError(
      problems.map((p) => inputIssue("invalid", `--dns-map ${file}: ${p}`)),
    );
  return map;
}

const dnsMaps = new Map<string, DnsMap>();

function policyOptions(f: PolicyFlags): PolicyOptions {
  let dnsMap: DnsMap | undefined;
  if (f.dnsMap !== undefined) {
    dnsMap = dnsMaps.get(f.dnsMap) ?? readDnsMap(f.dnsMap);
    dnsMaps.set(f.dnsMap, dnsMap);
  }
  return {
    selfTraffic: f.selfTraffic,
    hostNetwork: f.hostNetwork,
    localNodeIngress: f.localNodeIngress,
    ipBlockMatchesPods: f.ipBlockPodIps,
    ...(dnsMap !== undefined ? { dnsMap } : {}),
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
    .description(
      `is one connection allowed? exit 0 allowed, 1 denied, ${EXIT_POLICY_UNKNOWN} unknown (unresolved domainNames); prints the explanation`,
    )
    .requiredOption("--from <endpoint>", "source: NAMESPACE/POD or an IP")
    .requiredOption("--to <endpoint>", "destination: NAMESPACE/POD or an IP")
    .requiredOption("--port <n>", "destination port (after Service translation)")
    .option("--protocol <p>", "TCP, UDP or SCTP", "TCP")
    .option("-o, --output <format>", "text or json", "text");
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
      const v = evaluatePolicy(
        cluster,
        { from: o.from, to: o.to, port, protocol: o.protocol },
        policyOptions(o),
      );
      if (format === "json") io.stdout(`${JSON.stringify(v.explanation, null, 2)}\n`);
      else io.stdout(formatExplanation(v.explanation));
      process.exitCode =
        v.verdict === "allowed"
          ? EXIT_OK
          : v.verdict === "denied"
            ? EXIT_CHECK_FAILED
            : EXIT_POLICY_UNKNOWN;
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
    .option(
      "-o, --output <format>",
      "tsv, text (the e2e ./X grid with a legend), json, svg or html",
      "tsv",
    );
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
      const progress = startProgress(io, o);
      const cluster = loadClusterFromOptions(o, io, progress);
      if (picture !== undefined) {
        const draw = picture === "svg" ? policyMatrixSvg : policyMatrixHtml;
        io.stdout(draw(cluster, matrixOptions(o)));
        process.exitCode = EXIT_OK;
        return;
      }
      const mo = matrixOptions(o);
      let m: PolicyMatrix;
      try {
        progress.phase("compiling policies");
        const cp = toCompiled(cluster, mo);
        const pods = cp.facts.pods.length;
        progress.phase(`computing ${pods * pods * matrixProbes(cp, mo).length} probes`);
        m = computePolicyMatrix(cp, mo);
      } finally {
        progress.end();
      }
      // (rows are sorted by from, to, port, protocol: file order never changes the bytes)
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
    clusterNetworkPolicies: after.clusterNetworkPolicies,
  });
}

function diffText(rows: readonly PolicyDiffRow[]): string {
  const word = (b: MatrixCell): string => (b === "unknown" ? b : b ? "allowed" : "denied");
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
      "connections whose verdict changes from the -f set to each --against variant; exit 1 if any.\n" +
        "Every --against file, and every manifest file in an --against directory, is a variant of\n" +
        "its own (one section each). When a variant holds no Pods, the pods, namespaces and nodes\n" +
        "of -f are used with its policies.",
    )
    .requiredOption(
      "--against <path>",
      "the new manifests: a file (repeatable) or a directory, one variant per *.yaml/*.yml/*.json in it",
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option(
      "--ports <list>",
      "destination ports (default: every declared containerPort)",
      parsePorts,
    )
    .option("--protocols <list>", "default: TCP,UDP,SCTP", parseProtocols)
    .option("-o, --output <format>", "text, tsv or json", "text");
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
      const variants = o.against.flatMap(variantFiles);
      // Each variant is loaded on its own: its verdicts and warnings are not mixed with others'.
      const results = variants.map((file) => ({
        against: file,
        changes: policyDiff(
          before,
          mergeAgainst(before, loadClusterFromOptions({ ...o, filename: [file] }, io)),
          matrixOptions(o),
        ),
      }));
      const single = results.length === 1;
      if (format === "json")
        io.stdout(`${JSON.stringify(single ? results[0]?.changes : results, null, 2)}\n`);
      else if (format === "tsv")
        writeChunked(io, [
          `${single ? "" : "against\t"}from\tto\tport\tprotocol\tbefore\tafter\n`,
          ...results.flatMap(({ against, changes }) =>
            changes.map(
              (r) =>
                `${single ? "" : `${against}\t`}${r.from}\t${r.to}\t${r.port}\t${r.protocol}\t${r.before}\t${r.after}\n`,
            ),
          ),
        ]);
      else
        io.stdout(
          results
            .map(({ against, changes }) =>
              single ? diffText(changes) : `== ${against}\n${diffText(changes)}`,
            )
            .join(single ? "" : "\n"),
        );
      process.exitCode = results.some((r) => r.changes.length > 0) ? EXIT_CHECK_FAILED : EXIT_OK;
    },
  );
}

/** `--against DIR`: every manifest file in it (name order) is a variant of its own. */
function variantFiles(path: string): string[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    return [path]; // the loader reports the missing file
  }
  if (!isDir) return [path];
  const files = readdirSync(path)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => join(path, f));
  if (files.length === 0) throw new CliError(`--against ${path}: no *.yaml, *.yml or *.json files`);
  return files;
}

/** `FILE:LINE:COL: Kind ns/name: field.path: warning: message [code]`, like `validate`. */
function lintLine(cluster: Cluster, w: PolicyLintWarning): string {
  const key = objectKey(w.object.kind, w.object.namespace, w.object.name);
  const at = positionOf(cluster.fieldSources?.[key], w.path) ?? cluster.sources[key];
  const where = at !== undefined ? `${at.file}:${at.line}:${at.col}: ` : "";
  const path = w.path.length > 0 ? `${formatFieldPath(w.path)}: ` : "";
  return `${where}${formatObjectRef(w.object)}: ${path}warning: ${w.message} [${w.code}]\n`;
}

function registerLint(policy: Command, io: CliIO): void {
  const cmd = policy
    .command("lint")
    .description(
      "warnings about policies: unserved named ports, equal ANP/CNP priorities (and ties between the two APIs), policies selecting nothing, ipBlocks/networks covering pod IPs, shadowed ANP/CNP rules, unresolved domainNames",
    )
    .option("--strict", "exit 1 when there is any warning")
    .option("-o, --output <format>", "text or json", "text");
  addManifestOptions(cmd);
  addPolicyFlags(cmd);
  cmd.action((o: ManifestOptions & PolicyFlags & { strict?: boolean; output: string }) => {
    const format = parseOutputFormat(o.output, ["text", "json"]);
    const cluster = loadClusterFromOptions(o, io);
    const warnings = lintPolicies(cluster, policyOptions(o));
    if (format === "json") io.stdout(`${JSON.stringify(warnings, null, 2)}\n`);
    else
      io.stdout(
        warnings.length === 0
          ? "no warnings\n"
          : warnings.map((w) => lintLine(cluster, w)).join(""),
      );
    process.exitCode = o.strict === true && warnings.length > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  });
}

function registerConvert(policy: Command, io: CliIO): void {
  const cmd = policy
    .command("convert")
    .description(
      "rewrite AdminNetworkPolicies and the BaselineAdminNetworkPolicy (v1alpha1) as equivalent ClusterNetworkPolicies (v1alpha2)",
    )
    .addOption(
      new Option("--to <version>", "target API version")
        .choices(["v1alpha2"])
        .makeOptionMandatory(),
    )
    .option(
      "--baseline-priority <n>",
      "priority of the Baseline ClusterNetworkPolicy made from the BANP (0..1000)",
      "1000",
    )
    .option("-o, --output <format>", "yaml or json", "yaml");
  addManifestOptions(cmd);
  cmd.action((o: ManifestOptions & { to: string; baselinePriority: string; output: string }) => {
    const format = parseOutputFormat(o.output, ["yaml", "json"]);
    const prio = Number(o.baselinePriority);
    if (!Number.isInteger(prio) || prio < 0 || prio > 1000)
      throw new CliError(
        `--baseline-priority: invalid value "${o.baselinePriority}": must be 0..1000`,
      );
    const cluster = loadClusterFromOptions(o, io);
    const { policies, problems } = convertToV1alpha2(cluster, { baselinePriority: prio });
    if (problems.length > 0) throw new CliError(problems.join("\n"));
    if (policies.length === 0)
      io.stderr("no AdminNetworkPolicy or BaselineAdminNetworkPolicy to convert\n");
    if (format === "json")
      io.stdout(renderData({ apiVersion: "v1", kind: "List", items: policies }, "json"));
    else io.stdout(policies.map((p) => renderData(p, "yaml")).join("---\n"));
    process.exitCode = EXIT_OK;
  });
}

export function registerPolicy(program: Command, io: CliIO): void {
  const policy = program
    .command("policy")
    .description(
      "NetworkPolicy / AdminNetworkPolicy / BaselineAdminNetworkPolicy / ClusterNetworkPolicy verdicts, truth tables, diffs, lint and conversion",
    );
  registerCheck(policy, io);
  registerMatrix(policy, io);
  registerDiff(policy, io);
  registerLint(policy, io);
  registerConvert(policy, io);
}
