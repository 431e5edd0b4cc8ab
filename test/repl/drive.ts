/** Drives a REPL over piped streams (not a terminal) with the real CLI behind it. */
import { PassThrough } from "node:stream";
import type { Cluster } from "../../src/model/cluster.js";
import { loadCluster } from "../../src/model/load-files.js";
import { parseNodeEnvironment } from "../../src/model/load-node-environment.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { readFileSync } from "node:fs";
import { buildProgram, runCli } from "../../src/cli/program.js";
import { cliSpecs } from "../../src/cli/commands/repl.js";
import { replErrorText } from "../../src/cli/render-errors.js";
import { startRepl } from "../../src/repl/repl.js";
import type { SessionOptions } from "../../src/repl/session.js";

export const SCTP_SERVICE = {
  files: ["examples/sctp-service/cluster.yaml"],
  nodeEnv: "examples/sctp-service/node.yaml",
  proxyConfig: "examples/sctp-service/proxy.yaml",
  featureGates: {},
} as const satisfies SessionOptions;

export async function drive(
  lines: readonly string[],
  session: SessionOptions = SCTP_SERVICE,
  editFile?: (file: string) => void,
): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const cluster: Cluster = loadCluster([...session.files]);
  const node =
    session.nodeEnv !== undefined
      ? parseNodeEnvironment(readFileSync(session.nodeEnv, "utf8"), session.nodeEnv)
      : undefined;
  const proxyConfig = parseProxyConfig(
    readFileSync(session.proxyConfig ?? "examples/sctp-service/proxy.yaml", "utf8"),
    "proxy.yaml",
  );
  const io = { stdout: () => {}, stderr: () => {}, readStdin: () => "" };
  const done = startRepl({
    input,
    output,
    cluster,
    session,
    settings: () => (node === undefined ? { error: "no node given" } : { node, proxyConfig }),
    cli: cliSpecs(buildProgram(io)),
    run: runCli,
    errorText: replErrorText,
    ...(editFile !== undefined ? { editFile } : {}),
  });
  for (const line of lines) input.write(`${line}\n`);
  input.end();
  await done;
  return text;
}
