/**
 * Pods → hostport rules for one node: every pod scheduled there with `hostPort`s, in creation
 * order, through the kubenet hostport manager (one per IP family, as kubenet's meta manager
 * dispatches by pod IP) or through CNI portmap ADDs (one per container address family).
 *
 * Inputs the API objects do not carry are chosen as follows, and documented in docs/hostports.md:
 * - sandbox / container ID: annotation `kube-netsim.dev/sandbox-id`, else `metadata.uid`, else
 *   `<namespace>_<name>` (it only feeds the chain-name hash);
 * - portmap's container address prefix: the node's `spec.podCIDRs` entry containing the pod IP
 *   (what host-local IPAM hands out), else a host prefix;
 * - creation order: `metadata.creationTimestamp`, ties and missing stamps in input order.
 */
import type { Cluster } from "../model/cluster.js";
import type { Pod } from "../model/kinds.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import {
  cidrContains,
  ipFamilyOf,
  parseCIDR,
  parseIP,
  parseProtocol,
  toLowerProtocol,
  type IPFamily,
} from "../net/index.js";
import { HostportError } from "./errors.js";
import type { BindSemantics } from "./host-sockets.js";
import { HostportManager } from "./hostport-manager.js";
import { emptyNatTable, formatNatTable, type NatTable } from "./nat-table.js";
import { portmapAdd, PortmapConfigError, type PortmapConfig } from "./portmap.js";
import type { HostSocket, PodPortMapping, PortMapping } from "./port-mapping.js";

export type HostportImpl = "kubenet" | "portmap";

export const SANDBOX_ID_ANNOTATION = "kube-netsim.dev/sandbox-id";
export const DEFAULT_NAT_INTERFACE = "cbr0";
/** The network name of flannel's and kubenet-style bridge conflists. */
export const DEFAULT_PORTMAP_NETWORK = "cbr0";

export interface HostportNodeOptions {
  readonly impl: HostportImpl;
  /** kubenet: the pod bridge (default cbr0). */
  readonly natInterfaceName?: string;
  /** portmap: the plugin configuration (default `{ name: "cbr0" }`, snat on, mark bit 13). */
  readonly portmap?: PortmapConfig;
  readonly bindSemantics?: BindSemantics;
  /** The sandbox / container ID of a pod; default `sandboxIDOf`. */
  readonly sandboxID?: (pod: Pod) => string;
}

export interface PodHostports {
  readonly namespace: string;
  readonly name: string;
  readonly sandboxID: string;
  readonly family: IPFamily;
  readonly podIP: string;
  readonly portMappings: readonly PortMapping[];
  /** The component's error: the pod's network setup fails and nothing of it is programmed. */
  readonly error?: string;
}

export interface FamilyHostports {
  readonly family: IPFamily;
  readonly nat: NatTable;
  /** iptables-restore input for the nat table. */
  readonly restore: string;
}

export interface NodeHostports {
  readonly impl: HostportImpl;
  readonly nodeName: string;
  readonly families: readonly FamilyHostports[];
  readonly pods: readonly PodHostports[];
  /** Host sockets held open (kubenet's TCP/UDP reservations; never SCTP; none for portmap). */
  readonly sockets: readonly HostSocket[];
}

export function sandboxIDOf(pod: Pod): string {
  const annotated = pod.metadata?.annotations?.[SANDBOX_ID_ANNOTATION];
  if (annotated !== undefined && annotated !== "") return annotated;
  const uid = pod.metadata?.uid;
  if (uid !== undefined && uid !== "") return uid;
  return `${pod.metadata?.namespace ?? "default"}_${pod.metadata?.name ?? ""}`;
}

/** Container ports with a host port, in container then port order, as CRI passes them. */
export function podPortMappings(pod: Pod): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of pod.spec?.containers ?? [])
    for (const p of c.ports ?? []) {
      if (p.hostPort === undefined || p.hostPort <= 0) continue;
      out.push({
        hostPort: p.hostPort,
        containerPort: p.containerPort,
        protocol: parseProtocol(p.protocol ?? "TCP") ?? "TCP",
        ...(p.hostIP !== undefined && p.hostIP !== "" ? { hostIP: p.hostIP } : {}),
        ...(p.name !== undefined ? { name: p.name } : {}),
      });
    }
  return out;
}

export function podIPs(pod: Pod): string[] {
  const list = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip) => ip !== undefined);
  if (list.length === 0 && pod.status?.podIP !== undefined) list.push(pod.status.podIP);
  return list;
}

/** Pods on the node that have host ports and are not host-network, in creation order. */
export function hostportPodsOnNode(cluster: Cluster, nodeName: string): Pod[] {
  const pods = cluster.pods.filter(
    (p) =>
      p.spec?.nodeName === nodeName &&
      p.spec?.hostNetwork !== true &&
      p.status?.phase !== "Succeeded" &&
      p.status?.phase !== "Failed" &&
      podPortMappings(p).length > 0,
  );
  const stamp = (p: Pod) => p.metadata?.creationTimestamp ?? "";
  return pods
    .map((p, i) => ({ p, i }))
    .sort((a, b) => {
      const sa = stamp(a.p);
      const sb = stamp(b.p);
      if (sa !== "" && sb !== "" && sa !== sb) return sa < sb ? -1 : 1;
      return a.i - b.i;
    })
    .map((x) => x.p);
}

function nodeFamilies(node: NodeEnvironment): IPFamily[] {
  return node.ipFamilies.length > 0 ? [...node.ipFamilies] : ["IPv4"];
}

function containerNet(cluster: Cluster, nodeName: string, ip: string): string {
  const addr = parseIP(ip, "lenient");
  const nodeObj = cluster.nodes.find((n) => n.metadata?.name === nodeName);
  const cidrs =
    nodeObj?.spec?.podCIDRs ?? (nodeObj?.spec?.podCIDR !== undefined ? [nodeObj.spec.podCIDR] : []);
  for (const c of cidrs) {
    const parsed = parseCIDR(c, "lenient");
    if (addr !== undefined && parsed !== undefined && cidrContains(parsed, addr))
      return `${ip}/${parsed.prefix}`;
  }
  return `${ip}/${addr?.family === "IPv6" ? 128 : 32}`;
}

export function hostportRulesForNode(
  cluster: Cluster,
  node: NodeEnvironment,
  opts: HostportNodeOptions,
): NodeHostports {
  const families = nodeFamilies(node);
  const pods = hostportPodsOnNode(cluster, node.nodeName);
  const outcomes: PodHostports[] = [];
  const base = (pod: Pod, family: IPFamily, podIP: string) => ({
    namespace: pod.metadata?.namespace ?? "default",
    name: pod.metadata?.name ?? "",
    sandboxID: (opts.sandboxID ?? sandboxIDOf)(pod),
    family,
    podIP,
    portMappings: podPortMappings(pod),
  });

  if (opts.impl === "kubenet") {
    const managers = families.map(
      (family) =>
        new HostportManager({
          family,
          natInterfaceName: opts.natInterfaceName ?? DEFAULT_NAT_INTERFACE,
          ...(opts.bindSemantics !== undefined ? { bindSemantics: opts.bindSemantics } : {}),
        }),
    );
    for (const pod of pods) {
      const ips = podIPs(pod);
      // kubenet calls Add once per pod IP; a pod without one still reaches the manager (and fails).
      const targets = ips.length > 0 ? ips : [""];
      for (const ip of targets) {
        const family = ipFamilyOf(ip) ?? families[0] ?? "IPv4";
        const manager = managers.find((m) => m.family === family) ?? managers[0];
        const info = base(pod, family, ip);
        const mapping: PodPortMapping = {
          namespace: info.namespace,
          name: info.name,
          ip,
          hostNetwork: false,
          portMappings: info.portMappings,
        };
        try {
          manager?.add(info.sandboxID, mapping);
          outcomes.push(info);
        } catch (e) {
          if (!(e instanceof HostportError)) throw e;
          outcomes.push({ ...info, error: e.message });
        }
      }
    }
    return {
      impl: "kubenet",
      nodeName: node.nodeName,
      families: managers.map((m) => ({
        family: m.family,
        nat: m.natTable(),
        restore: m.save("restore"),
      })),
      pods: outcomes,
      sockets: managers.flatMap((m) => m.openSockets()),
    };
  }

  const config = opts.portmap ?? { name: DEFAULT_PORTMAP_NETWORK };
  const tables = new Map<IPFamily, NatTable>(families.map((f) => [f, emptyNatTable(f, true)]));
  for (const pod of pods) {
    for (const ip of podIPs(pod)) {
      const family = ipFamilyOf(ip);
      const table = family === undefined ? undefined : tables.get(family);
      if (family === undefined || table === undefined) continue;
      const info = base(pod, family, ip);
      const entries = info.portMappings.map((m) => ({
        hostPort: m.hostPort,
        containerPort: m.containerPort,
        protocol: toLowerProtocol(m.protocol),
        ...(m.hostIP !== undefined ? { hostIP: m.hostIP } : {}),
      }));
      try {
        tables.set(
          family,
          portmapAdd(
            table,
            config,
            info.sandboxID,
            containerNet(cluster, node.nodeName, ip),
            entries,
          ),
        );
        outcomes.push(info);
      } catch (e) {
        if (!(e instanceof PortmapConfigError)) throw e;
        outcomes.push({ ...info, error: e.message });
      }
    }
  }
  return {
    impl: "portmap",
    nodeName: node.nodeName,
    families: families.map((family) => {
      const nat = tables.get(family) ?? emptyNatTable(family, true);
      return { family, nat, restore: formatNatTable(nat, "restore") };
    }),
    pods: outcomes,
    sockets: [],
  };
}
