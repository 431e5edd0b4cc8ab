/**
 * What the hostport implementations consume: a pod's port mappings as the kubelet hands them to
 * the kubenet hostport manager (`PodPortMapping`, built from the pod's container ports via CRI),
 * and the host sockets the manager holds open to reserve TCP/UDP host ports.
 */
import type { IPFamily, Protocol } from "../net/index.js";

export interface PortMapping {
  readonly hostPort: number;
  readonly containerPort: number;
  /** Kubernetes spelling (`TCP`, `UDP`, `SCTP`); part of the KUBE-HP chain hash as written. */
  readonly protocol: Protocol;
  /** `containers[].ports[].hostIP`; absent or "" means every local address. */
  readonly hostIP?: string;
  /** Container port name, informational only. */
  readonly name?: string;
}

export interface PodPortMapping {
  readonly namespace: string;
  readonly name: string;
  /** The pod IP of the manager's family ("" or invalid ⇒ Add fails). */
  readonly ip: string;
  readonly hostNetwork: boolean;
  readonly portMappings: readonly PortMapping[];
}

/** A reserved host port (interfaces.md: `HostSocket`). */
export interface HostSocket {
  readonly family: IPFamily;
  /** "" = all addresses. */
  readonly hostIP: string;
  readonly port: number;
  readonly protocol: "tcp" | "udp";
}

/** `<name>_<namespace>`: the kubelet's pod full name, used in comments and errors. */
export function podFullName(pm: Pick<PodPortMapping, "name" | "namespace">): string {
  return `${pm.name}_${pm.namespace}`;
}

/** The unset forms of hostIP, which neither restrict the DNAT nor the bind address. */
export function isUnspecifiedHostIP(hostIP: string | undefined): boolean {
  return hostIP === undefined || hostIP === "" || hostIP === "0.0.0.0" || hostIP === "::";
}

export function formatHostSocket(s: HostSocket): string {
  return `${s.family} ${s.hostIP === "" ? "*" : s.hostIP} ${s.port} ${s.protocol}`;
}
