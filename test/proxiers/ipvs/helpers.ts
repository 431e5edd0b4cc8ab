/** Shared helpers for the IPVS proxier tests (not a test file). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadCluster, parseCluster } from "../../../src/model/index.js";
import { parseNodeEnvironment } from "../../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../../src/model/load-proxy-config.js";
import type { NodeEnvironment } from "../../../src/model/node-environment.js";
import { nodeEnv } from "../../../src/testing/builders/node-env.js";
import type { KubeProxyConfiguration } from "../../../src/model/proxy-config.js";
import { DEFAULT_PROXY_CONFIG } from "../../../src/model/proxy-config.js";
import { formatIP } from "../../../src/net/index.js";
import { sortIpvsTable, type IpvsTable } from "../../../src/netfilter/ipvs/index.js";
import { renderIpvs, type IpvsRender } from "../../../src/proxiers/ipvs/index.js";
import { ACCEPTANCE_DIR } from "../../helpers/shared.js";

export const ACCEPTANCE_IPVS = join(ACCEPTANCE_DIR, "ipvs");

export function renderCase(dir: string): IpvsRender {
  const cluster = loadCluster(join(dir, "cluster.yaml"), { validation: "warn" });
  const node = parseNodeEnvironment(readFileSync(join(dir, "node.yaml"), "utf8"), "node.yaml");
  const proxyConfig = parseProxyConfig(readFileSync(join(dir, "proxy.yaml"), "utf8"), "proxy.yaml");
  return renderIpvs(cluster, { node, proxyConfig });
}

export function readYaml(path: string): unknown {
  return parse(readFileSync(path, "utf8"));
}

/** Order-free view of a table: one string per VS with its sorted RS list. */
export function tableAsSet(t: IpvsTable): string[] {
  return sortIpvsTable(t).services.map(
    (s) =>
      `${s.virtualServer.protocol} ${formatIP(s.virtualServer.address)}:${s.virtualServer.port} ${s.virtualServer.scheduler} flags=${s.virtualServer.flags} timeout=${s.virtualServer.timeout} -> [` +
      s.realServers.map((r) => `${formatIP(r.address)}:${r.port} w${r.weight}`).join(", ") +
      "]",
  );
}

/** `-A CHAIN` lines of `table` in a restore text, in order. */
export function chainRules(restore: string, table: "nat" | "filter", chain: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of restore.split("\n")) {
    if (line.startsWith("*")) current = line.slice(1);
    else if (current === table && line.startsWith(`-A ${chain} `)) out.push(line);
  }
  return out;
}

/** The `-j` target and `--match-set` name of a rule line. */
export function jumpAndMatchSet(line: string): { jump: string; matchSet: string | null } {
  const words = line.split(" ");
  const j = words.indexOf("-j");
  const m = words.indexOf("--match-set");
  return { jump: words[j + 1] ?? "", matchSet: m === -1 ? null : (words[m + 1] ?? null) };
}

/** The entries of each set in `ipset save` text. */
export function ipsetEntries(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const [verb, name, ...rest] = line.split(" ");
    if (name === undefined) continue;
    if (verb === "create") out.set(name, out.get(name) ?? []);
    if (verb === "add") out.set(name, [...(out.get(name) ?? []), rest.join(" ")]);
  }
  return out;
}

export function ipsetTypes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [verb, name, ...rest] = line.split(" ");
    if (verb === "create" && name !== undefined) out.set(name, rest.join(" "));
  }
  return out;
}

export const NODE: NodeEnvironment = nodeEnv({
  name: "test-node",
  ipFamilies: ["IPv4"],
  interfaces: [{ name: "eth0", addresses: ["100.101.102.103/32"] }],
  kernel: { ipvs: true, sctp: true },
});

export const FAKE_PROXY_CONFIG: KubeProxyConfiguration = {
  ...DEFAULT_PROXY_CONFIG,
  mode: "ipvs",
  ipvs: { scheduler: "rr", strictARP: false, excludeCIDRs: [] },
};

export function renderYaml(
  yamlText: string,
  node: NodeEnvironment = NODE,
  proxyConfig: KubeProxyConfiguration = FAKE_PROXY_CONFIG,
): IpvsRender {
  const cluster = parseCluster([{ file: "test.yaml", text: yamlText }], { validation: "warn" });
  return renderIpvs(cluster, { node, proxyConfig });
}
