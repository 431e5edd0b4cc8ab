/**
 * What IPVS does with a packet, as data. IPVS hooks LOCAL_IN (packets for a local address,
 * after the nat PREROUTING / INPUT chains) and LOCAL_OUT for locally generated traffic; a packet
 * whose (protocol, destination, port) is a virtual server is scheduled to a real server and
 * DNATed there (masquerading forward), everything else passes on untouched.
 *
 * Scheduling is reported as every real server a new connection may go to, each with its
 * probability: proportional to weight, because every scheduler kube-proxy offers spreads
 * connections by weight over time; weight 0 (a draining real server) never gets a new one.
 * With persistence (sessionAffinity: ClientIP) a template per (virtual server, client network)
 * pins later connections to the first choice; kube-proxy sets expire_quiescent_template=1, so a
 * template pointing at a weight-0 server is dropped and the client is scheduled afresh.
 * A virtual server without a usable real server answers a new connection with ICMP port
 * unreachable (the kernel's ip_vs_leave path), which the tracer reports as REJECT.
 */
import { cidrContains, makeCIDR, type IPAddress } from "../../net/index.js";
import {
  IPVS_FLAG_PERSISTENT,
  virtualServerKey,
  type IpvsProtocol,
  type IpvsService,
  type IpvsTable,
  type RealServer,
  type VirtualServer,
} from "./model.js";

export interface IpvsPacketKey {
  readonly protocol: string;
  readonly src: IPAddress;
  readonly dst: IPAddress;
  readonly dport: number;
}

export interface IpvsChoice {
  readonly realServer: RealServer;
  readonly probability: number;
}

export type IpvsScheduleResult =
  /** No virtual server has this (protocol, address, port): IPVS leaves the packet alone. */
  | { readonly kind: "no-service" }
  /** A virtual server with no real server of weight > 0: ICMP port unreachable. */
  | { readonly kind: "no-destination"; readonly virtualServer: VirtualServer }
  | {
      readonly kind: "schedule";
      readonly virtualServer: VirtualServer;
      readonly choices: readonly IpvsChoice[];
      /** True when an existing persistence template decided the single choice. */
      readonly byPersistence: boolean;
    };

/** Persistence templates: (virtual server key, client network) → real server. */
export interface PersistenceTemplates {
  lookup(vs: VirtualServer, client: IPAddress): RealServer | undefined;
}

export const NO_TEMPLATES: PersistenceTemplates = { lookup: () => undefined };

/** An index of a table by virtual-server identity, built once per dataplane. */
export interface IpvsIndex {
  readonly table: IpvsTable;
  find(protocol: IpvsProtocol, address: IPAddress, port: number): IpvsService | undefined;
  /** True when `address` is the address of some virtual server (any protocol or port). */
  hasAddress(address: IPAddress): boolean;
}

export function indexIpvsTable(table: IpvsTable): IpvsIndex {
  const byKey = new Map<string, IpvsService>();
  const addresses = new Set<string>();
  for (const s of table.services) {
    byKey.set(virtualServerKey(s.virtualServer), s);
    addresses.add(`${s.virtualServer.address.family}/${s.virtualServer.address.value.toString()}`);
  }
  return {
    table,
    find: (protocol, address, port) => byKey.get(virtualServerKey({ protocol, address, port })),
    hasAddress: (a) => addresses.has(`${a.family}/${a.value.toString()}`),
  };
}

function ipvsProtocolOf(p: string): IpvsProtocol | undefined {
  const up = p.toUpperCase();
  return up === "TCP" || up === "UDP" || up === "SCTP" ? up : undefined;
}

/** The schedule of a new connection (or the template's pick) for one packet. */
export function ipvsSchedule(
  index: IpvsIndex,
  packet: IpvsPacketKey,
  templates: PersistenceTemplates = NO_TEMPLATES,
): IpvsScheduleResult {
  const protocol = ipvsProtocolOf(packet.protocol);
  if (protocol === undefined) return { kind: "no-service" };
  const svc = index.find(protocol, packet.dst, packet.dport);
  if (svc === undefined) return { kind: "no-service" };
  const vs = svc.virtualServer;
  const usable = svc.realServers.filter((r) => r.weight > 0);
  if ((vs.flags & IPVS_FLAG_PERSISTENT) !== 0) {
    const pinned = templates.lookup(vs, packet.src);
    if (pinned !== undefined && pinned.weight > 0)
      return {
        kind: "schedule",
        virtualServer: vs,
        choices: [{ realServer: pinned, probability: 1 }],
        byPersistence: true,
      };
  }
  if (usable.length === 0) return { kind: "no-destination", virtualServer: vs };
  const total = usable.reduce((sum, r) => sum + r.weight, 0);
  return {
    kind: "schedule",
    virtualServer: vs,
    choices: usable.map((r) => ({ realServer: r, probability: r.weight / total })),
    byPersistence: false,
  };
}

/** Templates as a list, matched by the virtual server's persistence netmask. */
export function persistenceTemplates(
  entries: readonly {
    readonly virtualServer: VirtualServer;
    readonly client: IPAddress;
    readonly realServer: RealServer;
  }[],
): PersistenceTemplates {
  return {
    lookup(vs, client) {
      for (const e of entries) {
        if (virtualServerKey(e.virtualServer) !== virtualServerKey(vs)) continue;
        if (cidrContains(makeCIDR(e.client, vs.netmask), client)) return e.realServer;
      }
      return undefined;
    },
  };
}
