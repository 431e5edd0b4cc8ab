/**
 * `render iptables` writes the restore text as the bytes its rule builders keep (text only: no
 * clause log, no typed rules) when stdout takes bytes, as the real CLI's does. Those bytes must
 * be exactly the text the typed rule set prints through the formatter (format/restore.ts, an
 * independent path from the same generator), per family, with the dual-stack headings.
 */
import { describe, expect, test } from "@jest/globals";
import { runCli, type CliIO } from "../../../src/cli/program.js";
import { formatIptablesRestore } from "../../../src/netfilter/format/restore.js";
import { loadCluster } from "../../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../../src/model/load-proxy-config.js";
import { renderIptables } from "../../../src/proxiers/iptables/render-iptables.js";
import { readFileSync } from "node:fs";

async function render(args: readonly string[], bytes: boolean): Promise<Buffer> {
  const pieces: Buffer[] = [];
  let text = "";
  const io: CliIO = {
    stdout: (s) => (text += s),
    stderr: () => undefined,
    readStdin: () => "",
    ...(bytes ? { stdoutBytes: (b: Uint8Array) => pieces.push(Buffer.from(b)) } : {}),
  };
  const code = await runCli(["render", "iptables", ...args], io);
  expect(code).toBe(0);
  if (bytes) expect(text).toBe("");
  return bytes ? Buffer.concat(pieces) : Buffer.from(text, "utf8");
}

/** The typed route: the rule set built from the clauses, printed by the formatter. */
function typedText(dir: string): string {
  const cluster = loadCluster([`${dir}/cluster.yaml`]);
  const r = renderIptables(cluster, {
    node: parseNodeEnvironment(readFileSync(`${dir}/node.yaml`, "utf8"), "node.yaml"),
    proxyConfig: parseProxyConfig(readFileSync(`${dir}/proxy.yaml`, "utf8"), "proxy.yaml"),
  });
  const many = r.families.length > 1;
  return r.families
    .map((f) => `${many ? `# ${f.family}\n` : ""}${formatIptablesRestore(f.payload)}`)
    .join("");
}

describe("render iptables: restore bytes", () => {
  for (const dir of ["examples/sctp-service", "examples/dual-stack"]) {
    test(`${dir}: the bytes are the typed rule set's restore text`, async () => {
      const args = [
        "-f",
        `${dir}/cluster.yaml`,
        "--node-env",
        `${dir}/node.yaml`,
        "--proxy-config",
        `${dir}/proxy.yaml`,
      ];
      const bytes = await render(args, true);
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes.toString("utf8")).toBe(typedText(dir));
      // Without a byte stdout the same text goes through the string.
      expect((await render(args, false)).equals(bytes)).toBe(true);
    });
  }
});
