/**
 * shared/spec/ipvs-proxier.md §9, as data: every documented way the IPVS proxier's dataplane
 * may deliver a packet to a different set of endpoints than the iptables proxier's. The
 * differential test requires equal endpoint sets unless one of these applies to the packet
 * and its relation holds; differences that never change the endpoint set (verdict, masquerade,
 * probabilities, dumps) are listed too, with `endpointSets: "equal"`, and each has its own test
 * in differences.test.ts.
 */
import { cidrContains, joinHostPort, parseCIDR, parseIP } from "../../src/net/index.js";
import type { PacketScenario } from "./scenario.js";

/** What one dataplane did with one packet. */
export interface Observed {
  /** Endpoints (`ip:port`) a new connection may reach. */
  readonly endpoints: ReadonlySet<string>;
  /** The final verdicts of the outcomes (DNAT, ACCEPT, DROP, REJECT, NONE). */
  readonly verdicts: ReadonlySet<string>;
}

export interface DocumentedDifference {
  readonly id: string;
  /** Where the spec documents it. */
  readonly spec: string;
  readonly summary: string;
  /** "differ": may change the endpoint set (then `applies`/`relation` say when and how). */
  readonly endpointSets: "differ" | "equal";
  readonly applies?: (p: PacketScenario) => boolean;
  /** What holds instead of equality: iptables result, IPVS result. */
  readonly relation?: (iptables: Observed, ipvs: Observed, p: PacketScenario) => boolean;
}

const EXTERNAL_DESTINATIONS = new Set(["node-port", "external-ip", "load-balancer"]);
const isSubset = (a: ReadonlySet<string>, b: ReadonlySet<string>) => [...a].every((x) => b.has(x));
const clusterEndpoints = (p: PacketScenario) =>
  new Set(p.service.endpointIPs.map((e) => joinHostPort(e.ip, 8080)));
const localEndpoints = (p: PacketScenario) =>
  new Set(p.service.endpointIPs.filter((e) => e.local).map((e) => joinHostPort(e.ip, 8080)));
const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  a.size === b.size && isSubset(a, b);
const hasLocal = (p: PacketScenario) => p.service.endpointIPs.some((e) => e.local);
const hasAny = (p: PacketScenario) => p.service.endpointIPs.length > 0;
const externallyAccessible = (p: PacketScenario) =>
  p.service.nodePort !== 0 ||
  p.service.externalIPs.length > 0 ||
  p.service.loadBalancerIPs.length > 0;
const fromPodOrNode = (p: PacketScenario) => p.source === "pod" || p.source === "node";

export const DIFFERENCES: readonly DocumentedDifference[] = [
  {
    id: "vips-are-local",
    spec: "§9.1",
    summary:
      "VIPs sit on kube-ipvs0: a non-service port on a ClusterIP is REJECTed by KUBE-IPVS-FILTER (IPVS) instead of being routed on (iptables)",
    endpointSets: "equal",
  },
  {
    id: "node-to-lb-source-ranges",
    spec: "§9.2",
    summary:
      "the node reaching a LoadBalancer VIP with loadBalancerSourceRanges that exclude it: iptables drops it in KUBE-FW, IPVS only drops VIP-sourced traffic (KUBE-IPVS-OUT-FILTER) and delivers",
    endpointSets: "differ",
    applies: (p) =>
      p.source === "node" &&
      p.destination === "load-balancer" &&
      p.service.sourceRanges.length > 0 &&
      !p.service.sourceRanges.some((r) =>
        cidrContains(parseCIDR(r)!, parseIP(p.service.plan.nodeIP)!),
      ),
    relation: (ipt, ipvs) => ipt.endpoints.size === 0 && ipvs.endpoints.size > 0,
  },
  {
    id: "node-port-addresses",
    spec: "§9.3",
    summary:
      "NodePorts: IPVS has one virtual server per node address known at sync time (SCTP masquerade by ip,port), iptables matches --dst-type LOCAL at packet time",
    endpointSets: "equal",
  },
  {
    id: "node-port-localhost",
    spec: "§9.4",
    summary:
      "127.0.0.1:<nodePort> from the node: iptables delivers (localhostNodePorts, route_localnet), IPVS has no loopback virtual server",
    endpointSets: "differ",
    applies: (p) => p.destination === "node-port-localhost",
    relation: (_ipt, ipvs) => ipvs.endpoints.size === 0,
  },
  {
    id: "affinity-per-virtual-server",
    spec: "§9.5",
    summary:
      "sessionAffinity ClientIP: IPVS persistence is per virtual server, iptables `recent` lists are per endpoint and shared by every access path",
    endpointSets: "equal",
  },
  {
    id: "no-endpoints-mechanism",
    spec: "§9.6",
    summary:
      "no endpoints: both refuse; IPVS answers port unreachable from a virtual server without real servers, iptables has explicit REJECT rules",
    endpointSets: "equal",
  },
  {
    id: "etp-local-fallback",
    spec: "§9.7",
    summary:
      "externalTrafficPolicy Local without local endpoints: iptables drops external traffic, IPVS falls back to the cluster endpoints",
    endpointSets: "differ",
    applies: (p) =>
      p.service.externalPolicyLocal &&
      EXTERNAL_DESTINATIONS.has(p.destination) &&
      !fromPodOrNode(p) &&
      hasAny(p) &&
      !hasLocal(p),
    relation: (ipt, ipvs, p) =>
      ipt.endpoints.size === 0 && sameSet(ipvs.endpoints, clusterEndpoints(p)),
  },
  {
    id: "etp-local-pod-and-node-sources",
    spec: "§9.7",
    summary:
      "externalTrafficPolicy Local, traffic from a pod or the node to an external address: iptables short-circuits to the cluster endpoints, IPVS uses the local ones when there are any",
    endpointSets: "differ",
    applies: (p) =>
      p.service.externalPolicyLocal &&
      EXTERNAL_DESTINATIONS.has(p.destination) &&
      fromPodOrNode(p) &&
      hasLocal(p),
    relation: (ipt, ipvs, p) =>
      sameSet(ipvs.endpoints, localEndpoints(p)) && isSubset(ipvs.endpoints, ipt.endpoints),
  },
  {
    id: "itp-local-fallback",
    spec: "§9.7 (corrected)",
    summary:
      "internalTrafficPolicy Local without local endpoints on a service that is also reachable externally: iptables gives no backend, IPVS's ClusterIP virtual server falls back to the cluster endpoints (CategorizeEndpoints keeps them because the service uses Cluster endpoints externally)",
    endpointSets: "differ",
    applies: (p) =>
      p.service.internalPolicyLocal &&
      p.destination === "cluster-ip" &&
      externallyAccessible(p) &&
      hasAny(p) &&
      !hasLocal(p),
    relation: (ipt, ipvs, p) =>
      ipt.endpoints.size === 0 && sameSet(ipvs.endpoints, clusterEndpoints(p)),
  },
  {
    id: "masquerade-by-ipset",
    spec: "§9.8",
    summary:
      "masquerade is decided by ipset matches in IPVS (ClusterIP without detector: src,dst; hairpin via KUBE-LOOP-BACK) and by per-chain rules in iptables",
    endpointSets: "equal",
  },
  {
    id: "draining-real-servers",
    spec: "§9.9",
    summary:
      "removed TCP endpoints stay as weight-0 real servers until drained; they never get new connections",
    endpointSets: "equal",
  },
  {
    id: "load-distribution",
    spec: "§9.10",
    summary:
      "IPVS schedules (rr, weight 1), iptables picks with statistic probabilities: compare backend sets, not choices",
    endpointSets: "equal",
  },
  {
    id: "health-check-node-ports",
    spec: "§9.11",
    summary:
      "health-check node ports: one ipset-based ACCEPT (IPVS) vs one ACCEPT rule per port (iptables)",
    endpointSets: "equal",
  },
  {
    id: "no-per-service-chains",
    spec: "§9.12",
    summary:
      "IPVS dumps have no KUBE-SVC-/KUBE-SEP-/KUBE-EXT-/KUBE-FW- chains, no DNAT rules and no per-service comments",
    endpointSets: "equal",
  },
  {
    id: "stale-virtual-servers",
    spec: "§9.13",
    summary:
      "IPVS deletes every virtual server it did not create this sync; kube-netsim renders from scratch, so the table holds only kube-proxy's own",
    endpointSets: "equal",
  },
];

/** The documented differences that explain a disagreement on this packet, if any. */
export function explainDisagreement(
  p: PacketScenario,
  iptables: Observed,
  ipvs: Observed,
): DocumentedDifference[] {
  return DIFFERENCES.filter(
    (d) =>
      d.endpointSets === "differ" &&
      d.applies !== undefined &&
      d.relation !== undefined &&
      d.applies(p) &&
      d.relation(iptables, ipvs, p),
  );
}
