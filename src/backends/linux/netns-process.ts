/**
 * The two kinds of process a probe run starts in a namespace, whatever the language of the
 * program (Node.js for TCP/UDP, Python for SCTP): a server that prints "ready" once it listens,
 * and a client that prints its results as JSON and exits. Both are tracked for cleanup.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { trackChild, type Netns } from "../netns.js";

function spawnIn(ns: Netns, argv: readonly string[]): ChildProcess {
  const child = spawn("ip", ["netns", "exec", ns.name, ...argv], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  trackChild(child);
  return child;
}

/** Runs `argv` in `ns`; resolves once it prints "ready" (`what` names it in errors). */
export function startReadyServer(
  ns: Netns,
  argv: readonly string[],
  what: string,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawnIn(ns, argv);
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${what} in ${ns.name} did not start: ${err}`));
    }, 10_000);
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} in ${ns.name} exited (${code}): ${err}`));
    });
  });
}

/** Runs `argv` in `ns` and parses the JSON it prints; killed `timeoutMs` + 10 s after start. */
export function runJsonClient<T>(
  ns: Netns,
  argv: readonly string[],
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawnIn(ns, argv);
    let out = "";
    let err = "";
    const guard = setTimeout(() => child.kill("SIGKILL"), timeoutMs + 10_000);
    child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    // "close", not "exit": exit can come before the output is read (seen under load).
    child.on("close", (code) => {
      clearTimeout(guard);
      if (code !== 0) reject(new Error(`${what} failed (${code}): ${err}`));
      else resolve(JSON.parse(out) as T);
    });
  });
}
