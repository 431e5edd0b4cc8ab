#!/usr/bin/env node
import { fstatSync, readFileSync } from "node:fs";
import { runCliLazily } from "./lazy-commands.js";
import { readUtf8 } from "./read-text.js";
import { keepYoungGenerationSize } from "./young-generation.js";

// A command (not `--version` or `--help`, which need no loading and would pay for node:v8).
if (process.argv[2]?.startsWith("-") === false) keepYoungGenerationSize();

// `kube-netsim ... | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

runCliLazily(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  readStdin: () => readUtf8(0),
  readStdinBytes: () => readFileSync(0),
  stdoutBytes: (b) => process.stdout.write(b),
  stdoutBytesSync: isRegularFile(1),
  stderrIsTTY: process.stderr.isTTY,
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((e: unknown) => {
    process.stderr.write(`kube-netsim: internal error: ${String(e)}\n`);
    process.exitCode = 70;
  });

/** `fd` is a regular file (Node writes to it synchronously). */
function isRegularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}
