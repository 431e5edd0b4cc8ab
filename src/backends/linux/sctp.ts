/**
 * SCTP on the real kernel: whether this machine can open SCTP sockets (detected by trying, as
 * the probes would: socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP), which also loads the sctp module
 * where it is loadable, so /proc/net/sctp alone would say too little), and the SCTP probe server
 * and client (sctp-scripts.ts) started in network namespaces.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import type { Capability } from "../backend.js";
import { trackChild, type Netns } from "../netns.js";
import type { Probe, ProbeResult } from "./probe-scripts.js";
import { SCTP_CLIENT_SCRIPT, SCTP_DETECT_SCRIPT, SCTP_SERVER_SCRIPT } from "./sctp-scripts.js";

const SOCKET_CALL = "socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)";

/** The reason on a kernel built without SCTP (EPROTONOSUPPORT), as on this development VM. */
export const NO_SCTP = `no SCTP sockets in this kernel (${SOCKET_CALL}: Protocol not supported)`;

export const NO_PYTHON =
  "python3 not installed (the SCTP probe server and client are Python programs; apt-get install python3-minimal)";

/** What trying to open an SCTP socket gave. */
export type SctpSocketTrial =
  | { readonly kind: "opened" }
  | { readonly kind: "failed"; readonly error: string }
  | { readonly kind: "no-python" };

/** Opens (and closes) one SCTP socket with the same interpreter the probes use (`python3` on PATH). */
export function trySctpSocket(env: NodeJS.ProcessEnv = process.env): SctpSocketTrial {
  const r = spawnSync("python3", ["-c", SCTP_DETECT_SCRIPT], { encoding: "utf8", env });
  if (r.error !== undefined) return { kind: "no-python" };
  if (r.status === 0) return { kind: "opened" };
  return { kind: "failed", error: (r.stdout || r.stderr).trim() || `exit ${r.status}` };
}

/** The `sctpSockets` capability from one trial, with the reason when there are none. */
export function sctpCapabilityOf(trial: SctpSocketTrial): Capability {
  switch (trial.kind) {
    case "opened":
      return { name: "sctpSockets", available: true };
    case "no-python":
      return { name: "sctpSockets", available: false, reason: NO_PYTHON };
    case "failed":
      return {
        name: "sctpSockets",
        available: false,
        reason:
          trial.error === "Protocol not supported"
            ? NO_SCTP
            : `no SCTP sockets in this kernel (${SOCKET_CALL}: ${trial.error})`,
      };
  }
}

let cached: Capability | undefined;

/** This machine's `sctpSockets` capability (tried once per process). */
export function detectSctpSockets(): Capability {
  cached ??= sctpCapabilityOf(trySctpSocket());
  return cached;
}

/** Starts the SCTP probe server on each address and port in `ns`; resolves once it listens. */
export function startSctpServer(
  ns: Netns,
  label: string,
  addresses: readonly string[],
  ports: readonly number[],
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = ["netns", "exec", ns.name, "python3", "-c", SCTP_SERVER_SCRIPT, label];
    const child = spawn("ip", [...args, JSON.stringify(addresses), JSON.stringify(ports)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    trackChild(child);
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`SCTP server in ${ns.name} did not start: ${err}`));
    }, 10_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`SCTP server in ${ns.name} exited (${code}): ${err}`));
    });
  });
}

/** Runs SCTP probes concurrently from `ns`, each bounded by `timeoutMs`. */
export function runSctpClient(
  ns: Netns,
  probes: readonly Probe[],
  timeoutMs: number,
): Promise<ProbeResult[]> {
  return new Promise((resolve, reject) => {
    const args = ["netns", "exec", ns.name, "python3", "-c", SCTP_CLIENT_SCRIPT];
    const child = spawn("ip", [...args, JSON.stringify(probes), String(timeoutMs)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    trackChild(child);
    let out = "";
    let err = "";
    const guard = setTimeout(() => child.kill("SIGKILL"), timeoutMs + 10_000);
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      clearTimeout(guard);
      if (code !== 0) reject(new Error(`SCTP probe client failed (${code}): ${err}`));
      else resolve(JSON.parse(out) as ProbeResult[]);
    });
  });
}
