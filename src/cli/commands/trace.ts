/**
 * `kube-netsim trace`: every outcome of a packet through a node's netfilter hooks, over a
 * saved rule set (`--rules`, iptables-save or restore text, repeatable for the two families)
 * or over the rules rendered from manifests (`-f`). One packet from the options, or a batch
 * from `--packets FILE.tsv` (header with at least protocol, sourceIP, destIP, destPort; optional
 * sourcePort, inInterface and origin; other columns are carried into `"input"`). An option the
 * chosen mode would not read is refused, never ignored. `--upstream` prints the kube-proxy unit-test tracer's
 * answer (output and masq) instead, which is what acceptance flows.tsv files hold.
 */
import { readText } from "../read-text.js";
import { Option, type Command } from "commander";
import { buildNodeDataplane } from "../../node/node-dataplane.js";
import { letYoungGenerationGrow } from "../young-generation.js";
import { traceNftUpstreamStyle } from "../../netfilter/nftables/upstream-trace.js";
import { parseNodeEnvironment } from "../../model/load-node-environment.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import { parseIptables } from "../../netfilter/parse/iptables.js";
import type { RuleSet } from "../../netfilter/model.js";
import {
  buildDataplane,
  describeOutcome,
  describeStep,
  formatTracedPacket,
  parseTraceProtocol,
  trace,
  TraceInputError,
  traceUpstreamStyle,
  type NodeDataplane,
  type PacketSpec,
  type TraceOrigin,
  type TraceResult,
} from "../../netfilter/trace/index.js";
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
import { startProgress, type Progress } from "../progress.js";
import { readIpsets } from "./trace-ipsets.js";
import { traceDot, traceGraph, traceSvg } from "../../report/trace-diagram.js";
import { snapshotDataplane } from "../../backends/snapshot/read.js";

interface TraceCommandOptions extends ManifestOptions, NodeOptions {
  readonly rules?: readonly string[];
  readonly ipsets?: string;
  readonly proto?: string;
  readonly src?: string;
  readonly sport?: string;
  readonly dst?: string;
  readonly dport?: string;
  readonly inInterface?: string;
  readonly origin?: TraceOrigin;
  readonly packets?: string;
  readonly output: string;
  readonly upstream?: boolean;
  readonly naive?: boolean;
  readonly snapshot?: string;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** What a value came from: a command-line option, or a cell of a --packets file. */
type Where = string | { readonly file: string; readonly line: number; readonly column: string };

/** A bad value: a usage error for an option, a positioned input issue for a --packets cell. */
function bad(where: Where, message: string): never {
  if (typeof where === "string") throw new CliError(`${where}: ${message}`);
  throw new TraceInputError(message, {
    source: { file: where.file, line: where.line },
    path: [where.column],
  });
}

function portOption(value: string | undefined, where: Where): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535)
    bad(where, `"${value}" is not a port number (0-65535)`);
  return Number(value);
}

const DEFAULT_NODE: Pick<NodeEnvironment, "interfaces" | "kernel" | "routes"> = {
  interfaces: [{ name: "lo", addresses: ["127.0.0.1/8", "::1/128"] }],
  kernel: {
    iptablesRandomFully: false,
    nfacct: [],
    conntrackTCPBeLiberal: false,
    ipvs: true,
    sctp: true,
  },
};

interface Loaded {
  readonly dataplane: NodeDataplane;
  readonly ruleSets: readonly RuleSet[];
  readonly localAddresses: readonly string[];
}

function loadFromRules(opts: TraceCommandOptions): Loaded {
  // --upstream also accepts what kube-proxy's test fake accepts in its fixtures (which are not
  // always valid iptables-restore input): the parser's upstream-test dialect.
  const ruleSets = (opts.rules ?? []).map((file) =>
    parseIptables(readText(file, "--rules"), {
      file,
      ...(opts.upstream === true ? { dialect: "upstream-test" as const } : {}),
    }),
  );
  const env =
    opts.nodeEnv !== undefined
      ? parseNodeEnvironment(readText(opts.nodeEnv, "--node-env"), opts.nodeEnv)
      : DEFAULT_NODE;
  const dataplane = buildDataplane({
    ruleSets,
    interfaces: env.interfaces,
    ...(env.routes !== undefined ? { routes: env.routes } : {}),
    nfacct: env.kernel.nfacct,
    ...(opts.ipsets !== undefined
      ? { ipsets: readIpsets(readText(opts.ipsets, "--ipsets"), opts.ipsets) }
      : {}),
  });
  return { dataplane, ruleSets, localAddresses: env.interfaces.flatMap((i) => i.addresses) };
}

function loadFromManifests(opts: TraceCommandOptions, io: CliIO, progress: Progress): Loaded {
  const cluster = loadClusterFromOptions(opts, io, progress);
  letYoungGenerationGrow();
  const node = loadNodeEnvironmentFromOptions(opts, cluster);
  const proxyConfig = loadProxyConfigFromOptions(opts, io);
  const dataplane = buildNodeDataplane(cluster, { proxyConfig, node });
  const ruleSets = Object.values(dataplane.ruleSets).filter((r): r is RuleSet => r !== undefined);
  return { dataplane, ruleSets, localAddresses: node.interfaces.flatMap((i) => i.addresses) };
}

type Row = Readonly<Record<string, string>>;

const REQUIRED_COLUMNS = ["protocol", "sourceIP", "destIP", "destPort"] as const;

export function parsePacketsTsv(text: string, file: string): Row[] {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? "").split("\t");
  for (const c of REQUIRED_COLUMNS)
    if (!header.includes(c))
      throw new TraceInputError(
        `the header has no "${c}" column (need ${REQUIRED_COLUMNS.join(", ")})`,
        { source: { file, line: 1 } },
      );
  const rows: Row[] = [];
  lines.slice(1).forEach((line, i) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const cells = line.split("\t");
    if (cells.length > header.length)
      throw new TraceInputError(`${cells.length} fields, the header has ${header.length}`, {
        source: { file, line: i + 2 },
      });
    rows.push(Object.fromEntries(header.map((h, k) => [h, cells[k] ?? ""])));
  });
  return rows;
}

/**
 * A row's packet. Optional columns: `sourcePort`, `inInterface`, `origin` (remote or local);
 * an empty cell or a missing column takes the command line's --in-interface / --origin.
 */
function rowSpec(
  row: Row,
  file: string,
  line: number,
  defaults: Pick<TraceCommandOptions, "inInterface" | "origin">,
): PacketSpec {
  const at = (column: string): Where => ({ file, line, column });
  const cell = (k: string) => (row[k] === undefined || row[k] === "" ? undefined : row[k]);
  const protocol = row.protocol === "" || row.protocol === undefined ? "tcp" : row.protocol;
  // An ICMP packet is an echo request: its port cells stay empty, as --sport/--dport stay out.
  const icmp = protocol.toLowerCase() === "icmp";
  if (icmp)
    for (const column of ["destPort", "sourcePort"])
      if (cell(column) !== undefined)
        bad(at(column), "an ICMP packet (an echo request) has no ports; leave the cell empty");
  if (!icmp && cell("destPort") === undefined)
    bad(at("destPort"), `a ${protocol} packet needs a destination port`);
  const dport = icmp ? 0 : portOption(row.destPort, at("destPort"));
  const sport =
    cell("sourcePort") !== undefined ? portOption(row.sourcePort, at("sourcePort")) : undefined;
  const inInterface = cell("inInterface") ?? defaults.inInterface;
  const origin = cell("origin") ?? defaults.origin;
  if (origin !== undefined && origin !== "remote" && origin !== "local")
    bad(at("origin"), `"${origin}" is not remote or local`);
  const src = row.sourceIP ?? "";
  const dst = row.destIP ?? "";
  refuseLeadingZeros(src, at("sourceIP"));
  refuseLeadingZeros(dst, at("destIP"));
  return {
    proto: atCell(at("protocol"), () => parseTraceProtocol(protocol)),
    src,
    dst,
    dport: dport ?? 0,
    ...(sport !== undefined ? { sport } : {}),
    ...(inInterface !== undefined
      ? { inInterface: interfaceOption(inInterface, at("inInterface")) }
      : {}),
    ...(origin !== undefined ? { origin } : {}),
  };
}

/**
 * An IPv4 number with a leading zero (`010.0.0.1`) is read as octal by iptables (libxtables)
 * and our rule parser, and as decimal by most other tools: refused as ambiguous (docs/trace.md).
 */
function refuseLeadingZeros(ip: string, where: Where): void {
  if (!ip.includes(":") && /(^|\.)0[0-9]/.test(ip))
    bad(
      where,
      `"${ip}" has a number with a leading zero, which iptables reads as octal and other tools as decimal; write it without`,
    );
}

function interfaceOption(name: string, where: Where): string {
  if (name === "") bad(where, "an interface name cannot be empty");
  return name;
}

/** A packet problem the tracer found in a --packets row (an address), placed at the row. */
function atRow<T>(at: { readonly file: string; readonly line: number }, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof TraceInputError) || e.issues[0]?.source !== undefined) throw e;
    throw new TraceInputError(e.issues[0]?.message ?? e.message, { source: at });
  }
}

/** A packet problem found past the cell (the tracer's TraceInputError) placed at the cell. */
function atCell<T>(where: Where, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (typeof where === "string" || !(e instanceof TraceInputError)) throw e;
    // The tracer names the value (`protocol "gre": ...`); the column already says which.
    const message = e.issues[0]?.message ?? e.message;
    return bad(
      where,
      message.startsWith(`${where.column} `) ? message.slice(where.column.length + 1) : message,
    );
  }
}

/** Options that say something about one packet (refused with --packets, whose rows say it). */
const ONE_PACKET = [
  ["proto", "--proto", "protocol"],
  ["src", "--src", "sourceIP"],
  ["sport", "--sport", "sourcePort"],
  ["dst", "--dst", "destIP"],
  ["dport", "--dport", "destPort"],
] as const;

/** Every option given is one this combination honours (issue 19: none is silently ignored). */
function refuseIgnoredOptions(opts: TraceCommandOptions, given: (name: string) => boolean): void {
  const refuse = (option: string, why: string) => {
    throw new CliError(`${option} ${why}`);
  };
  const fromRules = (opts.rules ?? []).length > 0;
  if (opts.packets !== undefined)
    for (const [key, option, column] of ONE_PACKET)
      if (opts[key] !== undefined)
        refuse(option, `describes one packet: with --packets, give it in the "${column}" column`);
  if (fromRules) {
    if (opts.node !== undefined) refuse("--node", "goes with -f (with --rules, give --node-env)");
    if (opts.proxyConfig !== undefined)
      refuse("--proxy-config", "goes with -f (--rules are already rendered)");
    if (opts.featureGates !== undefined) refuse("--feature-gates", "goes with -f");
    if (given("validation")) refuse("--validation", "goes with -f");
  } else if (opts.ipsets !== undefined)
    refuse("--ipsets", "goes with --rules (with -f the ipsets are rendered from the manifests)");
  if (opts.upstream === true) {
    // kube-proxy's test tracer takes protocol, source, destination and port only.
    if (opts.inInterface !== undefined) refuse("--in-interface", "is not read by --upstream");
    if (opts.origin !== undefined) refuse("--origin", "is not read by --upstream");
    if (opts.sport !== undefined) refuse("--sport", "is not read by --upstream");
    if (opts.naive === true) refuse("--naive", "is not read by --upstream");
    if (opts.ipsets !== undefined) refuse("--ipsets", "is not read by --upstream");
  }
}

/** A packet the trace found to be generated locally has no incoming interface to honour. */
function checkInInterface(spec: PacketSpec, r: TraceResult, where: Where): void {
  if (spec.inInterface !== undefined && r.origin === "local")
    bad(
      where,
      `${spec.src} is a node address, so the packet is generated locally and arrives on no interface; give --origin remote to trace it arriving on ${spec.inInterface}`,
    );
}

function optionSpec(opts: TraceCommandOptions): PacketSpec {
  // An ICMP packet is an echo request: it has no ports to give.
  const icmp = opts.proto?.toLowerCase() === "icmp";
  if (icmp)
    for (const [flag, value] of [
      ["--sport", opts.sport],
      ["--dport", opts.dport],
    ] as const)
      if (value !== undefined)
        throw new CliError(`${flag}: an ICMP packet (an echo request) has no ports; leave it out`);
  const wanted = icmp
    ? (["proto", "src", "dst"] as const)
    : (["proto", "src", "dst", "dport"] as const);
  const missing = wanted.filter((k) => opts[k] === undefined);
  if (missing.length > 0)
    throw new CliError(
      `missing ${missing.map((m) => `--${m}`).join(", ")} (or give --packets FILE.tsv)`,
    );
  const sport = portOption(opts.sport, "--sport");
  refuseLeadingZeros(opts.src!, "--src");
  refuseLeadingZeros(opts.dst!, "--dst");
  if (opts.inInterface !== undefined) interfaceOption(opts.inInterface, "--in-interface");
  return {
    proto: parseTraceProtocol(opts.proto!),
    src: opts.src!,
    dst: opts.dst!,
    dport: icmp ? 0 : portOption(opts.dport, "--dport")!,
    ...(sport !== undefined ? { sport } : {}),
    ...(opts.inInterface !== undefined ? { inInterface: opts.inInterface } : {}),
    ...(opts.origin !== undefined ? { origin: opts.origin } : {}),
  };
}

export function formatTraceText(r: TraceResult): string {
  const p = r.packet;
  const lines = [`packet: ${formatTracedPacket(p)} (${r.origin})`, `  ${r.explanation.origin}`];
  for (const note of r.explanation.notes) lines.push(`  note: ${note}`);
  r.outcomes.forEach((o, i) => {
    lines.push(`outcome ${i + 1}: ${describeOutcome(o)}`);
    lines.push(`  path: ${o.path.length > 0 ? o.path.join(" ") : "(no rule matched)"}`);
    for (const s of r.explanation.outcomes[i] ?? []) lines.push(`    ${describeStep(s)}`);
  });
  if (r.scenarios !== undefined) {
    const repeat = r.scenarios[1];
    if (repeat !== undefined) {
      lines.push(`repeat within the recent timeout:`);
      for (const o of repeat.outcomes)
        lines.push(`  ${describeOutcome(o)}; path: ${o.path.join(" ")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function run(opts: TraceCommandOptions, io: CliIO, given: (name: string) => boolean): void {
  // Pictures (src/report): one packet's walk as Graphviz DOT or a standalone SVG.
  const picture = opts.output === "dot" || opts.output === "svg" ? opts.output : undefined;
  const format = parseOutputFormat(picture !== undefined ? "text" : opts.output, ["text", "json"]);
  if (picture !== undefined && (opts.packets !== undefined || opts.upstream === true))
    throw new CliError(`--output ${picture} draws one packet: not with --packets or --upstream`);
  const fromRules = (opts.rules ?? []).length > 0;
  const fromManifests = (opts.filename ?? []).length > 0;
  if (fromRules === fromManifests && opts.snapshot === undefined)
    throw new CliError("give either --rules FILE or -f MANIFESTS (one of them)");
  refuseIgnoredOptions(opts, given);
  // Progress on stderr for a --packets file (a step per row); one packet needs none.
  const progress =
    opts.packets !== undefined ? startProgress(io, opts) : startProgress(io, { quiet: true });
  const loaded =
    opts.snapshot !== undefined
      ? snapshotDataplane(opts.snapshot)
      : fromRules
        ? loadFromRules(opts)
        : loadFromManifests(opts, io, progress);
  const traceOpts = { indexed: opts.naive !== true };
  const one = (spec: PacketSpec): TraceResult => trace(loaded.dataplane, spec, traceOpts);
  const upstream = (spec: PacketSpec) => {
    const family = spec.src.includes(":") ? "IPv6" : "IPv4";
    const nft = loaded.dataplane.nftables?.find(
      (t) => t.family === (family === "IPv4" ? "ip" : "ip6"),
    );
    if (nft !== undefined)
      return traceNftUpstreamStyle(
        nft,
        loaded.localAddresses.map((a) => a.split("/")[0] ?? a),
        {
          protocol: spec.proto,
          sourceIP: spec.src,
          destIP: spec.dst,
          destPort: spec.dport,
        },
      );
    const rs = loaded.ruleSets.find((r) => r.family === family);
    if (rs === undefined) throw new CliError(`no ${family} rule set given`);
    return traceUpstreamStyle(rs, loaded.localAddresses, {
      protocol: spec.proto,
      sourceIP: spec.src,
      destIP: spec.dst,
      destPort: spec.dport,
    });
  };
  if (opts.packets === undefined) {
    const spec = optionSpec(opts);
    if (opts.upstream === true) {
      const u = upstream(spec);
      io.stdout(
        format === "json"
          ? renderData({ output: u.output, masq: u.masq, path: u.path }, "json")
          : `${u.output}\t${u.masq}\n`,
      );
      return;
    }
    const r = one(spec);
    checkInInterface(spec, r, "--in-interface");
    if (picture !== undefined) {
      io.stdout(picture === "dot" ? traceDot(traceGraph(r)) : traceSvg(traceGraph(r)));
      return;
    }
    io.stdout(format === "json" ? renderData(r, "json") : formatTraceText(r));
    return;
  }
  const rows = parsePacketsTsv(readText(opts.packets, "--packets"), opts.packets);
  // The status line is erased before each row's output, so stdout on the same terminal stays clean.
  const write = (text: string): void => {
    progress.end();
    io.stdout(text);
  };
  progress.phase(`tracing ${rows.length} packets`);
  try {
    rows.forEach((row, i) => {
      progress.step(i + 1, rows.length);
      const spec = rowSpec(row, opts.packets!, i + 2, opts);
      if (opts.upstream === true) {
        const u = upstream(spec);
        if (format === "json")
          write(
            `${JSON.stringify({ output: u.output, masq: u.masq, path: u.path, input: row })}\n`,
          );
        else write(`${row.name !== undefined ? `${row.name}\t` : ""}${u.output}\t${u.masq}\n`);
        return;
      }
      const line = { file: opts.packets!, line: i + 2 };
      // An address the tracer refuses is the row's: its position is the row's line.
      const r = atRow(line, () => one(spec));
      checkInInterface(spec, r, { ...line, column: "inInterface" });
      if (format === "json") write(`${JSON.stringify({ ...r, input: row })}\n`);
      else write(`${row.name !== undefined ? `# ${row.name}\n` : ""}${formatTraceText(r)}\n`);
    });
  } finally {
    progress.end();
  }
}

export function registerTrace(program: Command, io: CliIO): void {
  const cmd = program
    .command("trace")
    .description(
      "every outcome of a packet through the node's netfilter hooks (NAT, conntrack, marks, IPVS)",
    )
    .option(
      "--rules <file>",
      "a saved rule set, iptables-save or iptables-restore text (repeatable: one per family)",
      collect,
    )
    .option("--ipsets <file>", "ipset save text for --rules")
    .option("--proto <proto>", "tcp, udp, sctp or icmp")
    .option("--src <ip>", "source address")
    .option("--sport <port>", "source port (default 40000)")
    .option("--dst <ip>", "destination address")
    .option("--dport <port>", "destination port")
    .option(
      "--in-interface <name>",
      "interface a remote packet arrives on (default: by source subnet)",
    )
    .addOption(
      new Option(
        "--origin <origin>",
        "remote or local (default: local iff the source is a node address)",
      ).choices(["remote", "local"]),
    )
    .option(
      "--packets <file.tsv>",
      "batch: TSV with protocol, sourceIP, destIP, destPort columns (sourcePort, inInterface, origin optional)",
    )
    .option(
      "--upstream",
      "answer as kube-proxy's unit-test tracer does (output and masq columns of flows.tsv)",
    )
    .option("--naive", "walk every rule (no destination index); for checking the index")
    .option(
      "--snapshot <dir>",
      "trace over a node's collected rules and addresses (snapshot collect)",
    )
    .option("-o, --output <format>", "text, json, dot or svg (one packet as a picture)", "text");
  addManifestOptions(cmd);
  addNodeOptions(cmd);
  cmd.addHelpText(
    "after",
    `
Examples:
  kube-netsim trace --rules examples/trace/node.rules --node-env examples/trace/node.yaml \\
      --proto tcp --src 203.0.113.2 --dst 172.30.0.41 --dport 80
  kube-netsim trace --rules examples/trace/node.rules --node-env examples/trace/node.yaml \\
      --packets examples/trace/packets.tsv --output json`,
  );
  // Bad input and failures are thrown as they are; src/cli/render-errors.ts prints them.
  cmd.action((opts: TraceCommandOptions, command: Command) => {
    run(opts, io, (name) => command.getOptionValueSource(name) === "cli");
  });
}
