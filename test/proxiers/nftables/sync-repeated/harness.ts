/** The TestSyncProxyRulesRepeated states on disk (see SOURCE.md), with the test's timing. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readSequenceDir } from "../../../../src/cli/commands/render-sequence.js";
import { parseNodeEnvironment } from "../../../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../../../src/model/load-proxy-config.js";
import type { SyncState } from "../../../../src/proxiers/nftables/sync.js";

export const SYNC_REPEATED = __dirname;

/**
 * The states in name order; those whose sync runs after `ageStaleChains()` upstream are named
 * `…+2s.yaml`, the others follow at once (interval 0).
 */
export function repeatedStates(): SyncState[] {
  const io = { stdout: () => undefined, stderr: () => undefined, readStdin: () => "" };
  return readSequenceDir(join(SYNC_REPEATED, "states"), {}, io);
}

export const REPEATED_INTERVAL = 0;

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
