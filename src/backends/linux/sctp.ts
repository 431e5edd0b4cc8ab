/**
 * SCTP on the real kernel: whether this machine can open SCTP sockets (detected by trying, as
 * the probes would: socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP), which also loads the sctp module
 * where it is loadable, so /proc/net/sctp alone would say too little), and the SCTP probe server
 * and client (sctp-scripts.ts) started in network namespaces.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import type { Capability } from "../backend.js";
import type { Netns } from "../netns.js";
import { runJsonClient, startReadyServer } from "./netns-process.js";
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
  const argv = ["python3", "-c", SCTP_SERVER_SCRIPT, label];
  return startReadyServer(
    ns,
    [...argv, JSON.stringify(addresses), JSON.stringify(ports)],
    "SCTP server",
  );
}

/** Runs SCTP probes concurrently from `ns`, each bounded by `timeoutMs`. */
export function runSctpClient(
  ns: Netns,
  probes: readonly Probe[],
  timeoutMs: number,
): Promise<ProbeResult[]> {
  const argv = ["python3", "-c", SCTP_CLIENT_SCRIPT, JSON.stringify(probes), String(timeoutMs)];
  return runJsonClient(ns, argv, timeoutMs, "SCTP probe client");
}
