/**
 * `kube-netsim conformance`: the SCTP test plan and the Service and NetworkPolicy suites against
 * a dataplane adapter, for CI systems that are not jest. `--adapter` names a built-in adapter or
 * a JavaScript module whose default (or `adapter`) export is a ConformanceAdapter; `--suite`
 * picks suites (default all). Reports (conformance-report.ts): text, JUnit XML or JSON. Exit 1
 * on a failure.
 */
import { Option, type Command } from "commander";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Backend } from "../../backends/backend.js";
import type { IPFamily } from "../../net/index.js";
import { netnsBackend } from "../../backends/netns/backend.js";
import { simulatorBackend } from "../../backends/simulator/backend.js";
import type { ConformanceAdapter } from "../../testing/conformance/adapter.js";
import {
  kubenetHostports,
  kubeProxyIptables,
  kubeProxyIpvs,
  kubeProxyNftables,
} from "../../testing/conformance/builtin-adapters.js";
import {
  runConformanceSuites,
  SUITE_NAMES,
  type SuiteName,
} from "../../testing/conformance/run-suites.js";
import { formatConformanceJson, formatConformanceText, formatJunit } from "./conformance-report.js";
import { guardedAdapter, importAdapterModule } from "./user-adapter.js";
import { CliError, EXIT_CHECK_FAILED } from "../exit.js";
import type { CliIO } from "../program.js";

interface ConformanceCliOptions {
  readonly adapter: string;
  readonly backend: "simulator" | "netns";
  readonly reporter: "text" | "junit" | "json";
  readonly suite: string;
  readonly families: string;
  readonly numRuns: string;
  readonly seed: string;
}

const BUILT_IN: Readonly<Record<string, ConformanceAdapter>> = {
  "kube-proxy-iptables": kubeProxyIptables,
  "kube-proxy-ipvs": kubeProxyIpvs,
  "kube-proxy-nftables": kubeProxyNftables,
  "kubenet-hostports": kubenetHostports,
};

function parseSuites(text: string): SuiteName[] {
  const names = text.split(",").map((s) => s.trim());
  for (const n of names)
    if (!(SUITE_NAMES as readonly string[]).includes(n))
      throw new CliError(`--suite "${text}": "${n}" is not one of ${SUITE_NAMES.join(", ")}`);
  return SUITE_NAMES.filter((n) => names.includes(n));
}

/** `--families ipv4,ipv6`: the Service suite's cluster families, in order, each once. */
function parseFamilies(text: string): IPFamily[] {
  const names = text.split(",").map((s) => s.trim().toLowerCase());
  const families: IPFamily[] = [];
  for (const n of names) {
    const f = n === "ipv4" ? "IPv4" : n === "ipv6" ? "IPv6" : undefined;
    if (f === undefined || families.includes(f))
      throw new CliError(
        `--families "${text}": expected ipv4, ipv6, or both comma-separated (ipv4,ipv6 or ipv6,ipv4)`,
      );
    families.push(f);
  }
  return families;
}

function integerOption(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min)
    throw new CliError(`${flag} "${text}": expected an integer of at least ${min}`);
  return n;
}

function isAdapter(x: unknown): x is ConformanceAdapter {
  const a = x as Partial<ConformanceAdapter> | undefined;
  return (
    typeof a === "object" &&
    typeof a.name === "string" &&
    Array.isArray(a.features) &&
    typeof a.nodeState === "function"
  );
}

async function loadAdapter(name: string): Promise<ConformanceAdapter> {
  const builtIn = BUILT_IN[name];
  if (builtIn !== undefined) return builtIn;
  if (!/\.(c|m)?js$/.test(name))
    throw new CliError(
      `--adapter "${name}": expected ${Object.keys(BUILT_IN).join(", ")} or a .js module`,
    );
  const path = resolve(name);
  if (!existsSync(path)) throw new CliError(`--adapter ${name}: no such file`);
  const mod = await importAdapterModule(name, path);
  const candidates = [
    mod.default,
    mod.adapter,
    (mod.default as Record<string, unknown> | undefined)?.adapter,
  ];
  const found = candidates.find(isAdapter);
  if (found === undefined)
    throw new CliError(
      `${name}: exports no adapter (a default or "adapter" export with name, features and nodeState)`,
    );
  return guardedAdapter(name, path, found);
}

export function registerConformance(program: Command, io: CliIO): void {
  program
    .command("conformance")
    .description(
      "the SCTP test plan and the Service and NetworkPolicy suites against a dataplane adapter (exit 1 on a failed test)",
    )
    .requiredOption(
      "--adapter <name|file.js>",
      `${Object.keys(BUILT_IN).join(", ")}, or a module exporting a ConformanceAdapter`,
    )
    .option(
      "--suite <names>",
      `comma-separated suites to run: ${SUITE_NAMES.join(", ")}`,
      SUITE_NAMES.join(","),
    )
    .option(
      "--families <list>",
      "IP families of the Service suite's clusters (hostPorts too): ipv4, ipv6, or ipv4,ipv6 (dual-stack; the first is primary)",
      "ipv4",
    )
    .option("--num-runs <n>", "runs of each Service/NetworkPolicy property", "20")
    .option("--seed <n>", "fast-check seed of the properties (the same cases every run)", "13")
    .addOption(
      new Option("--backend <name>", "where the probes run")
        .choices(["simulator", "netns"])
        .default("simulator"),
    )
    .addOption(
      new Option("--reporter <format>", "report format")
        .choices(["text", "junit", "json"])
        .default("text"),
    )
    .addHelpText(
      "after",
      `
Examples:
  kube-netsim conformance --adapter kube-proxy-iptables
  kube-netsim conformance --adapter kube-proxy-nftables --suite sctp,service
  kube-netsim conformance --adapter kube-proxy-iptables --suite service --families ipv4,ipv6
  kube-netsim conformance --adapter ./dist/conformance-adapter.js --reporter junit > conformance.xml`,
    )
    .action(async (opts: ConformanceCliOptions) => {
      const suites = parseSuites(opts.suite);
      const numRuns = integerOption("--num-runs", opts.numRuns, 1);
      const seed = integerOption("--seed", opts.seed, 0);
      const families = parseFamilies(opts.families);
      const adapter = await loadAdapter(opts.adapter);
      const backend: Backend = opts.backend === "netns" ? netnsBackend() : simulatorBackend();
      const results = await runConformanceSuites(adapter, {
        backend,
        suites,
        numRuns,
        seed,
        families,
      });
      switch (opts.reporter) {
        case "junit":
          io.stdout(formatJunit(adapter.name, results));
          break;
        case "json":
          io.stdout(formatConformanceJson(adapter.name, backend.name, results));
          break;
        case "text":
          io.stdout(formatConformanceText(adapter.name, results));
          break;
      }
      if (results.some((r) => r.failures.length > 0)) process.exitCode = EXIT_CHECK_FAILED;
    });
}
