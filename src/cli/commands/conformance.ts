/**
 * `kube-netsim conformance`: the SCTP test plan against a dataplane adapter, for CI systems that
 * are not jest. `--adapter` names a built-in adapter or a JavaScript module whose default (or
 * `adapter`) export is a ConformanceAdapter. Reports: text, JUnit XML (the common
 * testsuites/testsuite/testcase/failure shape CI servers read), or JSON. Exit 1 on a failure.
 */
import { Option, type Command } from "commander";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Backend } from "../../backends/backend.js";
import { netnsBackend } from "../../backends/netns/backend.js";
import { simulatorBackend } from "../../backends/simulator/backend.js";
import type { ConformanceAdapter } from "../../testing/conformance/adapter.js";
import { kubeProxyIptables, kubeProxyIpvs } from "../../testing/conformance/builtin-adapters.js";
import { runSctpPlan, type PlanResult } from "../../testing/conformance/run-plan.js";
import { CliError, EXIT_CHECK_FAILED } from "../exit.js";
import type { CliIO } from "../program.js";

interface ConformanceCliOptions {
  readonly adapter: string;
  readonly backend: "simulator" | "netns";
  readonly reporter: "text" | "junit" | "json";
}

const BUILT_IN: Readonly<Record<string, ConformanceAdapter>> = {
  "kube-proxy-iptables": kubeProxyIptables,
  "kube-proxy-ipvs": kubeProxyIpvs,
};

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
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
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
  return found;
}

function escapeXml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** JUnit XML: one testsuite per plan group, one testcase per test, a failure per failed test. */
export function formatJunit(adapter: string, results: readonly PlanResult[]): string {
  const failed = (rs: readonly PlanResult[]): number =>
    rs.filter((r) => r.failures.length > 0).length;
  const groups = [...new Set(results.map((r) => r.group))];
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${escapeXml(`SCTP conformance: ${adapter}`)}" tests="${results.length}" failures="${failed(results)}" errors="0" time="0">`,
  ];
  for (const g of groups) {
    const rs = results.filter((r) => r.group === g);
    lines.push(
      `  <testsuite name="${escapeXml(`SCTP conformance: ${adapter} ${g}`)}" tests="${rs.length}" failures="${failed(rs)}" errors="0" skipped="0" time="0">`,
    );
    for (const r of rs) {
      const head = `    <testcase classname="${escapeXml(`SCTP conformance.${g}`)}" name="${escapeXml(r.name)}" time="0"`;
      if (r.failures.length === 0) {
        lines.push(`${head}/>`);
        continue;
      }
      const text = r.failures.join("\n\n");
      lines.push(
        `${head}>`,
        `      <failure message="${escapeXml(text.split("\n")[0] ?? "")}" type="ConformanceFailure">${escapeXml(text)}</failure>`,
        `    </testcase>`,
      );
    }
    lines.push(`  </testsuite>`);
  }
  lines.push(`</testsuites>`, "");
  return lines.join("\n");
}

export function formatConformanceText(adapter: string, results: readonly PlanResult[]): string {
  const lines = [`SCTP conformance: ${adapter}`];
  for (const r of results) {
    lines.push(`  ${r.failures.length === 0 ? "PASS" : "FAIL"} ${r.group} ${r.name}`);
    for (const f of r.failures) lines.push(...f.split("\n").map((l) => `      ${l}`));
  }
  const failed = results.filter((r) => r.failures.length > 0).length;
  lines.push(`${results.length - failed} passed, ${failed} failed`, "");
  return lines.join("\n");
}

export function registerConformance(program: Command, io: CliIO): void {
  program
    .command("conformance")
    .description("the SCTP test plan against a dataplane adapter (exit 1 on a failed test)")
    .requiredOption(
      "--adapter <name|file.js>",
      "kube-proxy-iptables, kube-proxy-ipvs, or a module exporting a ConformanceAdapter",
    )
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
  kube-netsim conformance --adapter ./dist/conformance-adapter.js --reporter junit > conformance.xml`,
    )
    .action(async (opts: ConformanceCliOptions) => {
      const adapter = await loadAdapter(opts.adapter);
      const backend: Backend = opts.backend === "netns" ? netnsBackend() : simulatorBackend();
      const results = await runSctpPlan(adapter, { backend });
      switch (opts.reporter) {
        case "junit":
          io.stdout(formatJunit(adapter.name, results));
          break;
        case "json":
          io.stdout(
            `${JSON.stringify({ adapter: adapter.name, backend: backend.name, results }, null, 2)}\n`,
          );
          break;
        case "text":
          io.stdout(formatConformanceText(adapter.name, results));
          break;
      }
      if (results.some((r) => r.failures.length > 0)) process.exitCode = EXIT_CHECK_FAILED;
    });
}
