/**
 * The IPVS table, Kubernetes-agnostic: virtual servers (address, protocol, port) with a
 * scheduler, flags and persistence timeout, each with its real servers.
 *
 * Identity of a virtual server is (address, protocol, port); the netmask is the persistence
 * granularity (a prefix length: 32 / 128 for a host, which is all kube-proxy ever uses).
 * `flags` keeps the kernel's IP_VS_SVC_F_* bits except FlagHashed, which the kernel adds on
 * its own and every reader strips (kube-proxy does too), so that two equal tables compare equal.
 */
import { compareIP, type IPAddress } from "../../net/index.js";

export type IpvsProtocol = "TCP" | "UDP" | "SCTP";

/** IP_VS_SVC_F_* bits (include/uapi/linux/ip_vs.h). */
export const IPVS_FLAG_PERSISTENT = 0x0001;
export const IPVS_FLAG_HASHED = 0x0002;
export const IPVS_FLAG_ONEPACKET = 0x0004;
export const IPVS_FLAG_SCHED1 = 0x0008;
export const IPVS_FLAG_SCHED2 = 0x0010;
export const IPVS_FLAG_SCHED3 = 0x0020;

/** How a real server is reached; ipvsadm prints Masq/Local/Tunnel/Route and -m/-g/-i/-g. */
export type ForwardMethod = "masq" | "local" | "tunnel" | "route";

export interface VirtualServer {
  readonly address: IPAddress;
  readonly protocol: IpvsProtocol;
  readonly port: number;
  readonly scheduler: string;
  readonly flags: number;
  /** Persistence timeout in seconds (meaningful with IPVS_FLAG_PERSISTENT). */
  readonly timeout: number;
  /** Persistence netmask as a prefix length. */
  readonly netmask: number;
}

export interface RealServer {
  readonly address: IPAddress;
  readonly port: number;
  readonly weight: number;
  readonly forward: ForwardMethod;
  readonly activeConn: number;
  readonly inactiveConn: number;
}

export interface IpvsService {
  readonly virtualServer: VirtualServer;
  readonly realServers: readonly RealServer[];
}

export interface IpvsTable {
  readonly services: readonly IpvsService[];
}

/** IP protocol numbers, which is what ipvsadm sorts services by. */
export const IPVS_PROTOCOL_NUMBER: Readonly<Record<IpvsProtocol, number>> = {
  TCP: 6,
  UDP: 17,
  SCTP: 132,
};

export function virtualServerKey(vs: {
  readonly address: IPAddress;
  readonly protocol: IpvsProtocol;
  readonly port: number;
}): string {
  return `${vs.protocol}/${vs.address.family}/${vs.address.value.toString()}/${vs.port}`;
}

/** ipvsadm's default order: family, protocol number, address, port. */
export function compareVirtualServers(a: VirtualServer, b: VirtualServer): number {
  if (a.address.family !== b.address.family) return a.address.family === "IPv4" ? -1 : 1;
  const p = IPVS_PROTOCOL_NUMBER[a.protocol] - IPVS_PROTOCOL_NUMBER[b.protocol];
  if (p !== 0) return p;
  const c = compareIP(a.address, b.address);
  return c !== 0 ? c : a.port - b.port;
}

/** ipvsadm's default order of real servers: address, then port. */
export function compareRealServers(a: RealServer, b: RealServer): number {
  const c = compareIP(a.address, b.address);
  return c !== 0 ? c : a.port - b.port;
}

/** The table in ipvsadm's listing order (a table itself has no order). */
export function sortIpvsTable(table: IpvsTable): IpvsTable {
  return {
    services: [...table.services]
      .sort((a, b) => compareVirtualServers(a.virtualServer, b.virtualServer))
      .map((s) => ({ ...s, realServers: [...s.realServers].sort(compareRealServers) })),
  };
}

export function hostNetmask(address: IPAddress): number {
  return address.family === "IPv4" ? 32 : 128;
}

/** A virtual server with kube-proxy's invariant fields filled in. */
export function makeVirtualServer(
  v: Pick<VirtualServer, "address" | "protocol" | "port"> & Partial<VirtualServer>,
): VirtualServer {
  return {
    address: v.address,
    protocol: v.protocol,
    port: v.port,
    scheduler: v.scheduler ?? "rr",
    flags: v.flags ?? 0,
    timeout: v.timeout ?? 0,
    netmask: v.netmask ?? hostNetmask(v.address),
  };
}

export function makeRealServer(
  r: Pick<RealServer, "address" | "port"> & Partial<RealServer>,
): RealServer {
  return {
    address: r.address,
    port: r.port,
    weight: r.weight ?? 1,
    forward: r.forward ?? "masq",
    activeConn: r.activeConn ?? 0,
    inactiveConn: r.inactiveConn ?? 0,
  };
}

/** Scheduler flag names as ipvsadm ≥1.29 prints them (`-b` in save form). */
export function schedulerFlagNames(scheduler: string, flags: number): string[] {
  const names: string[] = [];
  const [f1, f2] =
    scheduler === "sh"
      ? ["sh-fallback", "sh-port"]
      : scheduler === "mh"
        ? ["mh-fallback", "mh-port"]
        : ["flag-1", "flag-2"];
  if ((flags & IPVS_FLAG_SCHED1) !== 0) names.push(f1);
  if ((flags & IPVS_FLAG_SCHED2) !== 0) names.push(f2);
  if ((flags & IPVS_FLAG_SCHED3) !== 0) names.push("flag-3");
  return names;
}

export function schedulerFlagsFromNames(names: readonly string[]): number | undefined {
  let flags = 0;
  for (const n of names) {
    if (n === "sh-fallback" || n === "mh-fallback" || n === "flag-1") flags |= IPVS_FLAG_SCHED1;
    else if (n === "sh-port" || n === "mh-port" || n === "flag-2") flags |= IPVS_FLAG_SCHED2;
    else if (n === "flag-3") flags |= IPVS_FLAG_SCHED3;
    else return undefined;
  }
  return flags;
}
