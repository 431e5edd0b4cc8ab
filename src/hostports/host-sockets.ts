/**
 * Host port reservation. The kubelet opens (and keeps) a TCP listener or UDP socket for every
 * TCP/UDP hostPort so that no other pod or host process can take it; SCTP is never opened
 * (KEP-614: Kubernetes must not cause the kernel `sctp` module to load).
 *
 * Two notions of "already taken":
 * - `kubelet-fake` (default): the upstream unit tests' fake opener, where a socket is taken only
 *   by the identical key (family, hostIP, port, protocol); `*:8888` and `127.0.0.1:8888` coexist.
 * - `kernel`: what bind(2) without SO_REUSEADDR does: same family, protocol and port conflict
 *   when the addresses are equal or either is the wildcard.
 */
import type { HostSocket } from "./port-mapping.js";

export type BindSemantics = "kubelet-fake" | "kernel";

/** The socket that prevents opening `s`, if any. */
export function conflictingSocket(
  open: readonly HostSocket[],
  s: HostSocket,
  semantics: BindSemantics,
): HostSocket | undefined {
  return open.find(
    (o) =>
      o.family === s.family &&
      o.protocol === s.protocol &&
      o.port === s.port &&
      (o.hostIP === s.hostIP || (semantics === "kernel" && (o.hostIP === "" || s.hostIP === ""))),
  );
}

export function sameSocket(a: HostSocket, b: HostSocket): boolean {
  return (
    a.family === b.family && a.hostIP === b.hostIP && a.port === b.port && a.protocol === b.protocol
  );
}

/** Deterministic order: family, port, protocol, then address. */
export function compareHostSockets(a: HostSocket, b: HostSocket): number {
  if (a.family !== b.family) return a.family < b.family ? -1 : 1;
  if (a.port !== b.port) return a.port - b.port;
  if (a.protocol !== b.protocol) return a.protocol < b.protocol ? -1 : 1;
  return a.hostIP < b.hostIP ? -1 : a.hostIP > b.hostIP ? 1 : 0;
}

/** The error text a real bind would give (Go's net package wording). */
export function bindErrorText(s: HostSocket, semantics: BindSemantics): string {
  if (semantics === "kubelet-fake") return "hostport is occupied";
  const host = s.hostIP.includes(":") ? `[${s.hostIP}]` : s.hostIP;
  const net = `${s.protocol}${s.family === "IPv4" ? "4" : "6"}`;
  return `listen ${net} ${host}:${s.port}: bind: address already in use`;
}
