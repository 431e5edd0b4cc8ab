/**
 * One sync of one per-family IPVS proxier (spec §1, §3, §4): from the common plan to the
 * desired kernel state — virtual servers with real servers, addresses on kube-ipvs0, ipset
 * entries and the LB VIPs the node itself may not reach. No rule text here (iptables-rules.ts).
 *
 * Real servers of a virtual server come from the common endpoint categorisation: Cluster
 * endpoints, or for a Local policy the local ones — and, unlike the iptables proxier, the
 * Cluster endpoints again when no local endpoint exists (PR #97081).
 */
import {
  makeCIDR,
  parseCIDR,
  parseIP,
  type IPAddress,
  type IPFamily,
  type LowerProtocol,
} from "../../net/index.js";
import type { IpsetEntry, IpsetEntryPart } from "../../netfilter/ipset/index.js";
import { formatIpsetElement } from "../../netfilter/ipset/format.js";
import {
  IPVS_FLAG_PERSISTENT,
  IPVS_FLAG_SCHED2,
  hostNetmask,
  makeRealServer,
  type IpvsService,
  type RealServer,
  type VirtualServer,
} from "../../netfilter/ipvs/index.js";
import type { Endpoint, ServicePortPlan } from "../common/index.js";
import type { FamilyPlanSource } from "../common/plan.js";
import { IPVS_IPSETS, ipsetName, type IpvsIpset, type IpvsIpsetId } from "./ipsets.js";
import { inEntryTextOrder } from "./entry-order.js";
import { nodeAddressSet, nodePortIPs } from "./node-addresses.js";

/** An LB VIP with source ranges that do not include the node: node→VIP traffic is dropped. */
export interface NoNodeAccessEntry {
  readonly ip: string;
  readonly protocol: LowerProtocol;
  readonly port: number;
}

/** Where a virtual server came from (for explanations and tests). */
export type VirtualServerSource = "cluster-ip" | "external-ip" | "load-balancer" | "node-port";

export interface PlannedVirtualServer extends IpvsService {
  readonly source: VirtualServerSource;
  /** `ns/name:port` of the service port. */
  readonly servicePortName: string;
}

export interface IpvsFamilySync {
  readonly family: IPFamily;
  readonly virtualServers: readonly PlannedVirtualServer[];
  /** Addresses bound on kube-ipvs0 (each as /32 or /128), in first-bound order. */
  readonly boundAddresses: readonly string[];
  /** All 17 sets, in creation order. */
  readonly ipsets: readonly IpvsIpset[];
  readonly noNodeAccess: readonly NoNodeAccessEntry[];
  /** The node addresses NodePort virtual servers were created on. */
  readonly nodePortAddresses: readonly string[];
}

function ip(s: string): IPAddress {
  const a = parseIP(s, "lenient");
  if (a === undefined) throw new Error(`not an IP: ${s}`);
  return a;
}

function ipPart(address: string): IpsetEntryPart {
  return { kind: "ip", ip: ip(address) };
}

/** A port entry (bitmap:port sets carry no protocol). */
function portPart(port: number, protocol?: LowerProtocol): IpsetEntryPart {
  return protocol === undefined ? { kind: "port", port } : { kind: "port", protocol, port };
}

function netPart(cidr: string): IpsetEntryPart {
  const c = parseCIDR(cidr, "lenient");
  if (c === undefined) throw new Error(`not a CIDR: ${cidr}`);
  return { kind: "net", cidr: makeCIDR(c.network, c.prefix) };
}

/** `ip,proto:port` (hash:ip,port), optionally with a third member. */
function ipPortEntry(
  address: string,
  protocol: LowerProtocol,
  port: number,
  third?: IpsetEntryPart,
): IpsetEntryPart[] {
  const parts = [ipPart(address), portPart(port, protocol)];
  if (third !== undefined) parts.push(third);
  return parts;
}

function realServersFor(endpoints: readonly Endpoint[]) {
  return endpoints.map((e) => makeRealServer({ address: ip(e.ip), port: e.port }));
}

/** Cluster endpoints, or the local ones for a Local policy (falling back to Cluster). */
function selectEndpoints(plan: ServicePortPlan, onlyNodeLocal: boolean): readonly Endpoint[] {
  const { clusterEndpoints, localEndpoints } = plan.categorized;
  if (onlyNodeLocal && localEndpoints.length > 0) return localEndpoints;
  return clusterEndpoints;
}

/**
 * One sync from the plan made one service port at a time (`familyPlanSource`): no plan of the
 * whole cluster is kept while the state is made, only the state itself.
 */
export function syncFamily(plan: FamilyPlanSource): IpvsFamilySync {
  const { settings, family } = plan;
  // Each set's entries by their element text (an ipset holds an element once).
  const entries = new Map<IpvsIpsetId, Map<string, IpsetEntry>>(
    IPVS_IPSETS.map((d) => [d.id, new Map()]),
  );
  const add = (id: IpvsIpsetId, parts: readonly IpsetEntryPart[]) => {
    const entry: IpsetEntry = { parts, nomatch: false };
    const text = formatIpsetElement(entry);
    const set = entries.get(id);
    if (set !== undefined && !set.has(text)) set.set(text, entry);
  };
  const virtualServers: PlannedVirtualServer[] = [];
  const bound: string[] = [];
  // The same addresses, to look up (one per ClusterIP: the list alone made this quadratic).
  const boundSet = new Set<string>();
  const noNodeAccess: NoNodeAccessEntry[] = [];
  const localAddresses = new Set(nodeAddressSet(settings.nodeEnvironment, family));
  // Computed for the first NodePort service port.
  let nodeIPs: readonly string[] | undefined;
  const scheduler = settings.config.ipvs.scheduler === "" ? "rr" : settings.config.ipvs.scheduler;

  plan.forEach((p) => {
    const sp = p.servicePort;
    const proto = sp.lowerProtocol;
    const makeVS = (address: string, port: number): VirtualServer => {
      const a = ip(address);
      const affinity = sp.sessionAffinity;
      return {
        address: a,
        protocol: sp.protocol,
        port,
        scheduler,
        flags:
          (affinity.kind === "ClientIP" ? IPVS_FLAG_PERSISTENT : 0) |
          (scheduler === "mh" ? IPVS_FLAG_SCHED2 : 0),
        timeout: affinity.kind === "ClientIP" ? affinity.timeoutSeconds : 0,
        netmask: hostNetmask(a),
      };
    };
    let realServersOf: readonly Endpoint[] | undefined;
    let realServers: readonly RealServer[] = [];
    const addVS = (
      source: VirtualServerSource,
      address: string,
      port: number,
      bind: boolean,
      onlyNodeLocal: boolean,
    ) => {
      const endpoints = selectEndpoints(p, onlyNodeLocal);
      // A service port's virtual servers mostly have the same real servers: made once.
      if (endpoints !== realServersOf) {
        realServersOf = endpoints;
        realServers = realServersFor(endpoints);
      }
      virtualServers.push({
        source,
        servicePortName: sp.name,
        virtualServer: makeVS(address, port),
        realServers,
      });
      if (bind && !boundSet.has(address)) {
        boundSet.add(address);
        bound.push(address);
      }
    };

    // Hairpin: a local endpoint reaching itself through the service must be masqueraded.
    for (const e of p.endpoints) {
      if (!e.isLocal || e.port <= 0) continue;
      const address = ipPart(e.ip);
      add("LOOP-BACK", [address, portPart(e.port, proto), address]);
    }

    add("CLUSTER-IP", ipPortEntry(sp.clusterIP, proto, sp.port));
    addVS("cluster-ip", sp.clusterIP, sp.port, true, sp.internalPolicyLocal);

    for (const ext of sp.externalIPs) {
      add(
        sp.externalPolicyLocal ? "EXTERNAL-IP-LOCAL" : "EXTERNAL-IP",
        ipPortEntry(ext, proto, sp.port),
      );
      addVS("external-ip", ext, sp.port, !localAddresses.has(ext), sp.externalPolicyLocal);
    }

    for (const vip of sp.loadBalancerVIPs) {
      const entry = ipPortEntry(vip, proto, sp.port);
      add("LOAD-BALANCER", entry);
      if (sp.externalPolicyLocal) add("LOAD-BALANCER-LOCAL", entry);
      if (sp.loadBalancerSourceRanges.length > 0) {
        add("LOAD-BALANCER-FW", entry);
        for (const cidr of sp.loadBalancerSourceRanges)
          add("LOAD-BALANCER-SOURCE-CIDR", ipPortEntry(vip, proto, sp.port, netPart(cidr)));
        if (p.allowFromNode)
          add("LOAD-BALANCER-SOURCE-IP", ipPortEntry(vip, proto, sp.port, ipPart(vip)));
        else noNodeAccess.push({ ip: vip, protocol: proto, port: sp.port });
      }
      addVS("load-balancer", vip, sp.port, !localAddresses.has(vip), sp.externalPolicyLocal);
    }

    if (sp.nodePort !== 0) {
      nodeIPs ??= nodePortIPs(settings.nodeEnvironment, family, settings.nodePortAddresses);
      // Without node addresses kube-proxy skips the rest of the service port, health check too.
      if (nodeIPs.length === 0) return;
      const local = sp.externalPolicyLocal;
      switch (proto) {
        case "tcp":
          add("NODE-PORT-TCP", [portPart(sp.nodePort)]);
          if (local) add("NODE-PORT-LOCAL-TCP", [portPart(sp.nodePort)]);
          break;
        case "udp":
          add("NODE-PORT-UDP", [portPart(sp.nodePort)]);
          if (local) add("NODE-PORT-LOCAL-UDP", [portPart(sp.nodePort)]);
          break;
        case "sctp":
          // bitmap:port carries no protocol, so SCTP needs ip,port entries: one per node IP.
          for (const nodeIP of nodeIPs) {
            add("NODE-PORT-SCTP-HASH", ipPortEntry(nodeIP, "sctp", sp.nodePort));
            if (local) add("NODE-PORT-LOCAL-SCTP-HASH", ipPortEntry(nodeIP, "sctp", sp.nodePort));
          }
          break;
      }
      for (const nodeIP of nodeIPs) addVS("node-port", nodeIP, sp.nodePort, false, local);
    }

    if (sp.healthCheckNodePort !== 0)
      add("HEALTH-CHECK-NODE-PORT", [portPart(sp.healthCheckNodePort)]);
  });

  for (const a of bound) add("IPVS-IPS", [ipPart(a)]);

  const ipsets: IpvsIpset[] = IPVS_IPSETS.map((d) => ({
    id: d.id,
    name: ipsetName(d.id, family),
    type: d.type,
    family,
    comment: d.comment,
    entries: inEntryTextOrder(
      [...(entries.get(d.id)?.keys() ?? [])],
      [...(entries.get(d.id)?.values() ?? [])],
    ),
  }));
  return {
    family,
    virtualServers,
    boundAddresses: bound,
    ipsets,
    noNodeAccess,
    nodePortAddresses: nodeIPs ?? [],
  };
}
