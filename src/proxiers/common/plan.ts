/**
 * The per-service-port plan every proxier mode renders (spec §4.1): the service port, its
 * endpoints, and the decisions derived from them. A mode only turns a plan into its own rules.
 */
import type { Cluster } from "../../model/cluster.js";
import type { Service } from "../../model/kinds.js";
import type { IPFamily } from "../../net/index.js";
import { cidrContains, parseIP } from "../../net/index.js";
import { categorizeEndpoints, type CategorizedEndpoints } from "./categorize.js";
import {
  compareStrings,
  endpointsOf,
  servicePortKey,
  slicesByServicePort,
  type Endpoint,
} from "./endpoint.js";
import type { ProxierSettings } from "./proxier-settings.js";
import { parseCIDRSloppy, servicePortsForFamily, type ServicePort } from "./service-port.js";

/** What happens to traffic a service port cannot deliver. */
export type NoEndpointsVerdict =
  /** No usable endpoint anywhere: REJECT (ICMP port unreachable / TCP reset). */
  | "reject"
  /** Endpoints exist, but none on this node for a Local policy: DROP. */
  | "drop";

export interface ServicePortPlan {
  readonly servicePort: ServicePort;
  /** Every endpoint of the service port (any condition), sorted by endpoint string. */
  readonly endpoints: readonly Endpoint[];
  readonly categorized: CategorizedEndpoints;
  /** Usable endpoints exist somewhere in the cluster. */
  readonly hasEndpoints: boolean;
  /** ClusterIP traffic is delivered (to local endpoints when internalPolicyLocal). */
  readonly hasInternalEndpoints: boolean;
  /** External traffic is delivered (to local endpoints when externalPolicyLocal). */
  readonly hasExternalEndpoints: boolean;
  /** ClusterIP traffic uses the Local endpoint set. */
  readonly internalUsesLocal: boolean;
  /** External traffic (other than from pods/host) uses the Local endpoint set. */
  readonly externalUsesLocal: boolean;
  /** A Cluster-policy endpoint set is in use (iptables: KUBE-SVC chain). */
  readonly usesClusterPolicy: boolean;
  /** A Local-policy endpoint set is in use (iptables: KUBE-SVL chain). */
  readonly usesLocalPolicy: boolean;
  /** External destinations exist and something is delivered (iptables: KUBE-EXT chain). */
  readonly usesExternalEntry: boolean;
  /** LB source ranges are enforced (iptables: KUBE-FW chain). */
  readonly usesFirewall: boolean;
  /** When ClusterIP traffic is not delivered, what is done with it. */
  readonly internalVerdict: NoEndpointsVerdict | undefined;
  /** When external traffic is not delivered, what is done with it. */
  readonly externalVerdict: NoEndpointsVerdict | undefined;
  /** The node IP lies in a source range: LB VIPs are allowed as sources (hairpin from node). */
  readonly allowFromNode: boolean;
  /** Health-check node port to open (0 for none). */
  readonly healthCheckNodePort: number;
  /** Local ready endpoints, as the health check server counts them. */
  readonly localReadyEndpointCount: number;
}

export function planServicePort(
  sp: ServicePort,
  endpoints: readonly Endpoint[],
  settings: ProxierSettings,
): ServicePortPlan {
  const categorized = categorizeEndpoints(endpoints, sp, settings.topology);
  const hasEndpoints = categorized.hasAnyEndpoints;
  const usesClusterPolicy = categorized.clusterEndpoints.length > 0 && sp.usesClusterEndpoints;
  const usesLocalPolicy = categorized.localEndpoints.length > 0 && sp.usesLocalEndpoints;
  const hasLocal = categorized.localEndpoints.length > 0;
  const hasInternalEndpoints = hasEndpoints && (!sp.internalPolicyLocal || hasLocal);
  const hasExternalEndpoints = hasEndpoints && (!sp.externalPolicyLocal || hasLocal);
  const usesFirewall =
    hasEndpoints && sp.loadBalancerVIPs.length > 0 && sp.loadBalancerSourceRanges.length > 0;
  const allowFromNode = nodeIPInSourceRanges(sp, settings);
  return {
    servicePort: sp,
    endpoints,
    categorized,
    hasEndpoints,
    hasInternalEndpoints,
    hasExternalEndpoints,
    internalUsesLocal: sp.internalPolicyLocal,
    externalUsesLocal: sp.externalPolicyLocal,
    usesClusterPolicy,
    usesLocalPolicy,
    usesExternalEntry: hasEndpoints && sp.externallyAccessible,
    usesFirewall,
    internalVerdict: !hasEndpoints ? "reject" : !hasInternalEndpoints ? "drop" : undefined,
    externalVerdict: !hasEndpoints ? "reject" : !hasExternalEndpoints ? "drop" : undefined,
    allowFromNode,
    healthCheckNodePort: sp.healthCheckNodePort,
    localReadyEndpointCount: countLocalReady(endpoints),
  };
}

function countLocalReady(endpoints: readonly Endpoint[]): number {
  let n = 0;
  for (const e of endpoints) if (e.isLocal && e.ready) n++;
  return n;
}

/** The node IP lies in one of the service port's LB source ranges. */
function nodeIPInSourceRanges(sp: ServicePort, settings: ProxierSettings): boolean {
  // Most service ports have no source ranges: skip parsing the node IP for them.
  if (sp.loadBalancerSourceRanges.length === 0 || settings.nodeIP === undefined) return false;
  const nodeIP = parseIP(settings.nodeIP, "lenient");
  if (nodeIP === undefined) return false;
  return sp.loadBalancerSourceRanges.some((r) => {
    const c = parseCIDRSloppy(r);
    return c !== undefined && cidrContains(c, nodeIP);
  });
}

/** Orders service ports by namespace, service, port name, then protocol. */
export function compareServicePorts(a: ServicePort, b: ServicePort): number {
  return (
    compareStrings(a.namespace, b.namespace) ||
    compareStrings(a.serviceName, b.serviceName) ||
    compareStrings(a.portName, b.portName) ||
    compareStrings(a.protocol, b.protocol)
  );
}

export interface FamilyPlan {
  readonly family: IPFamily;
  readonly settings: ProxierSettings;
  /** Sorted with `compareServicePorts`: output never depends on input object order. */
  readonly servicePorts: readonly ServicePortPlan[];
  /** Endpoints over all service ports (any condition): large-cluster mode is > 1000. */
  readonly totalEndpoints: number;
}

const NO_ENDPOINTS: readonly Endpoint[] = Object.freeze([]);

/**
 * A family's plan made one service port at a time (`forEach`), in `planFamily`'s order: a
 * renderer that writes each service port's rules as it comes (the iptables proxier's text-only
 * path) never holds every endpoint or service port object of a large cluster at once, so they
 * die young instead of being copied by the garbage collector and promoted into fresh memory.
 */
export interface FamilyPlanSource {
  readonly family: IPFamily;
  readonly settings: ProxierSettings;
  /** At least the number of service ports `forEach` plans (the Services' ports), a hint. */
  readonly servicePortCount: number;
  /**
   * At least `totalEndpoints` (the endpoints every slice lists per port, before the family
   * check, de-duplication and the match with a Service), known before planning.
   */
  readonly endpointBound: number;
  /** Plans each service port in order and hands it to `visit`; returns `totalEndpoints`. */
  forEach(visit: (plan: ServicePortPlan) => void): number;
}

const serviceNamespace = (s: Service): string => s.metadata?.namespace ?? "default";
const serviceName = (s: Service): string => s.metadata?.name ?? "";

/**
 * Plans every service port of `cluster` for one per-family proxier, one at a time: Services
 * sorted by namespace and name (stable), each one's ports made when it comes and sorted by port
 * name and protocol, which is `compareServicePorts` order.
 */
export function familyPlanSource(cluster: Cluster, settings: ProxierSettings): FamilyPlanSource {
  const sources = slicesByServicePort(cluster.endpointSlices);
  let endpointBound = 0;
  sources.forEach((from) => (endpointBound += from.listed));
  const services = [...cluster.services].sort(
    (a, b) =>
      compareStrings(serviceNamespace(a), serviceNamespace(b)) ||
      compareStrings(serviceName(a), serviceName(b)),
  );
  let servicePortCount = 0;
  for (const svc of services) servicePortCount += svc.spec?.ports?.length ?? 0;
  const { family, nodeName } = settings;
  return {
    family,
    settings,
    servicePortCount,
    endpointBound,
    forEach(visit) {
      let totalEndpoints = 0;
      for (let i = 0; i < services.length;) {
        // Services of one namespace and name (one, unless the input repeats an object).
        let j = i + 1;
        const first = services[i] as Service;
        while (
          j < services.length &&
          serviceNamespace(services[j] as Service) === serviceNamespace(first) &&
          serviceName(services[j] as Service) === serviceName(first)
        )
          j++;
        for (const sp of servicePortsOf(services, i, j, family)) {
          const from = sources.get(
            servicePortKey(sp.namespace, sp.serviceName, sp.portName, sp.protocol),
          );
          const eps = from === undefined ? NO_ENDPOINTS : endpointsOf(from, family, nodeName);
          totalEndpoints += eps.length;
          visit(planServicePort(sp, eps, settings));
        }
        i = j;
      }
      return totalEndpoints;
    },
  };
}

/**
 * The service ports of `services[from, to)` (one namespace and name) for `family`, sorted by
 * port name and protocol; of two with the same name and protocol (invalid API input), the first
 * is kept, as kube-proxy keeps one.
 */
function servicePortsOf(
  services: readonly Service[],
  from: number,
  to: number,
  family: IPFamily,
): ServicePort[] {
  const ports: ServicePort[] = [];
  for (let s = from; s < to; s++) {
    for (const sp of servicePortsForFamily(services[s] as Service, family)) {
      if (!ports.some((p) => p.portName === sp.portName && p.protocol === sp.protocol))
        ports.push(sp);
    }
  }
  // Stable; the same order as compareServicePorts within one Service.
  if (ports.length > 1) ports.sort(compareServicePorts);
  return ports;
}

/** A whole plan read as a source (its `totalEndpoints` is exact). */
export function planAsSource(plan: FamilyPlan): FamilyPlanSource {
  return {
    family: plan.family,
    settings: plan.settings,
    servicePortCount: plan.servicePorts.length,
    endpointBound: plan.totalEndpoints,
    forEach(visit) {
      for (const p of plan.servicePorts) visit(p);
      return plan.totalEndpoints;
    },
  };
}

/** Plans every service port of `cluster` for one per-family proxier. */
export function planFamily(cluster: Cluster, settings: ProxierSettings): FamilyPlan {
  const servicePorts: ServicePortPlan[] = [];
  const totalEndpoints = familyPlanSource(cluster, settings).forEach((p) => servicePorts.push(p));
  return { family: settings.family, settings, servicePorts, totalEndpoints };
}
