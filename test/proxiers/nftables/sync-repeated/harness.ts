/** The TestSyncProxyRulesRepeated states on disk (see SOURCE.md), with the test's timing. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadCluster } from "../../../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../../../src/model/load-proxy-config.js";
import type { SyncState } from "../../../../src/proxiers/nftables/sync.js";

export const SYNC_REPEATED = __dirname;

/** States whose sync runs after `ageStaleChains()` upstream. */
const AGED = new Set(["04", "08", "12"]);

export function repeatedStates(): SyncState[] {
  const files = readdirSync(join(SYNC_REPEATED, "states")).sort();
  return files.map((f) => ({
    name: f,
    cluster: loadCluster([join(SYNC_REPEATED, "states", f)]),
    elapsedSeconds: AGED.has(f.slice(0, 2)) ? 2 : 0,
  }));
}

export function repeatedOptions() {
  const file = (f: string) => join(SYNC_REPEATED, f);
  return {
    node: parseNodeEnvironment(readFileSync(file("node.yaml"), "utf8"), file("node.yaml")),
    proxyConfig: parseProxyConfig(readFileSync(file("proxy.yaml"), "utf8"), file("proxy.yaml")),
    masqueradeMarkFormat: "short" as const,
  };
}

export function expectedDump(step: string): string {
  return readFileSync(join(SYNC_REPEATED, "expected", `${step}.nft`), "utf8");
}
