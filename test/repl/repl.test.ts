import { describe, expect, it } from "@jest/globals";
import { PassThrough } from "node:stream";
import { startRepl } from "../../src/repl/repl.js";
import { argvFor, splitWords, EMPTY_STATE, addFiles, setSetting } from "../../src/repl/session.js";

async function drive(lines: readonly string[], files: readonly string[] = []): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = "";
  output.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const done = startRepl({ input, output, files });
  for (const line of lines) input.write(`${line}\n`);
  input.end();
  await done;
  return text;
}

describe("repl session", () => {
  it("splits words like a shell", () => {
    expect(splitWords(`trace --src '10.0.0.1' "a b" c\\ d`)).toEqual([
      "trace",
      "--src",
      "10.0.0.1",
      "a b",
      "c d",
    ]);
    expect(splitWords(`say "open`)).toEqual({ error: 'unterminated " quote' });
  });

  it("adds the session's manifests and settings to manifest commands only", () => {
    let s = addFiles(EMPTY_STATE, ["a.yaml", "b/"]);
    s = setSetting(s, "nodeEnv", "node.yaml");
    expect(argvFor(s, ["render", "iptables"])).toEqual([
      "render",
      "iptables",
      "-f",
      "a.yaml",
      "-f",
      "b/",
      "--node-env",
      "node.yaml",
    ]);
    expect(argvFor(s, ["policy", "matrix", "-f", "x.yaml"])).toEqual([
      "policy",
      "matrix",
      "-f",
      "x.yaml",
    ]);
    expect(argvFor(s, ["parse", "r.rules"])).toEqual(["parse", "r.rules"]);
    expect(argvFor(s, ["trace", "--rules", "r"])).toEqual([
      "trace",
      "--rules",
      "r",
      "--node-env",
      "node.yaml",
    ]);
  });

  it("keeps snapshots immutable", () => {
    const a = addFiles(EMPTY_STATE, ["x"]);
    const b = addFiles(a, ["y"]);
    expect(a.files).toEqual(["x"]);
    expect(b.files).toEqual(["x", "y"]);
  });

  it("runs commands and session commands from piped input", async () => {
    const out = await drive([
      ".load examples/sctp-test-plan/",
      ".session",
      "validate",
      "nonsense-command",
    ]);
    expect(out).toContain("files: examples/sctp-test-plan/");
    expect(out).toContain("ok");
    expect(out).toContain("(exit 2)");
  });
});
