/** The examples the report tests render: each folder with its node and proxy config. */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { DEFAULT_PROXY_CONFIG } from "../../src/model/proxy-config.js";
import { renderReport } from "../../src/report/report.js";

/** Every example folder with manifests, with its node and (last) proxy config when present. */
export function exampleInputs(): { dir: string; node?: string; proxy?: string }[] {
  return readdirSync("examples")
    .map((d) => join("examples", d))
    .filter((d) => readdirSync(d).some((f) => /\.ya?ml$/.test(f) && !/^(node|proxy)/.test(f)))
    .map((dir) => {
      const proxies = readdirSync(dir).filter((f) => /^proxy.*\.ya?ml$/.test(f));
      return {
        dir,
        ...(existsSync(join(dir, "node.yaml")) ? { node: join(dir, "node.yaml") } : {}),
        ...(proxies.length > 0 ? { proxy: join(dir, proxies[proxies.length - 1]!) } : {}),
      };
    });
}

export function reportFor(input: { dir: string; node?: string; proxy?: string }): string {
  const cluster = loadCluster(input.dir);
  return renderReport(cluster, {
    ...(input.node !== undefined
      ? { node: parseNodeEnvironment(readFileSync(input.node, "utf8"), input.node) }
      : {}),
    proxyConfig:
      input.proxy !== undefined
        ? parseProxyConfig(readFileSync(input.proxy, "utf8"), input.proxy)
        : DEFAULT_PROXY_CONFIG,
  });
}
