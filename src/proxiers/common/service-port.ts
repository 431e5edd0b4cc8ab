/**
 * Service ports: what kube-proxy keeps of a Service, one entry per `spec.ports[]` and IP family
 * (spec §1.2). Everything is normalised here (IPs re-printed canonically, source ranges masked,
 * addresses of the other family dropped), so renderers only print.
 */
import {
  canonicalIP,
  formatCIDR,
  ipFamilyOf,
  makeCIDR,
  parseIP,
  toLowerProtocol,
  type CIDR,
  type IPFamily,
  type LowerProtocol,
  type Protocol,
} from "../../net/index.js";
import type { Service } from "../../model/kinds.js";
import { isCanonicalIPv4 } from "./canonical-ipv4.js";

export type SessionAffinity =
  { readonly kind: "None" } | { readonly kind: "ClientIP"; readonly timeoutSeconds: number };

export interface ServicePort {
  readonly namespace: string;
  readonly serviceName: string;
  /** `spec.ports[].name` ("" when unnamed). */
  readonly portName: string;
  readonly protocol: Protocol;
  /** `tcp` / `udp` / `sctp`: the word used in rules. */
  readonly lowerProtocol: LowerProtocol;
  /** `ns/name:port` or `ns/name` for an unnamed port: comments and hash input. */
  readonly name: string;
  readonly family: IPFamily;
  readonly clusterIP: string;
  readonly port: number;
  /** 0 when none. */
  readonly nodePort: number;
  /** Canonical IPs of this family, in spec order. */
  readonly externalIPs: readonly string[];
  /** LoadBalancer ingress IPs of this family with ipMode unset or VIP, in status order. */
  readonly loadBalancerVIPs: readonly string[];
  /** Masked CIDRs of this family (`203.0.113.0/25`), in spec order. */
  readonly loadBalancerSourceRanges: readonly string[];
  readonly sessionAffinity: SessionAffinity;
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
  /** 0 unless type LoadBalancer with externalTrafficPolicy Local. */
  readonly healthCheckNodePort: number;
  /** nodePort, an LB VIP or an externalIP exists. */
  readonly externallyAccessible: boolean;
  readonly usesClusterEndpoints: boolean;
  readonly usesLocalEndpoints: boolean;
}

/** The API default for `sessionAffinityConfig.clientIP.timeoutSeconds`. */
export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10800;

/** `spec.clusterIPs[i]` for this family (or a legacy single `clusterIP`), or undefined. */
export function clusterIPForFamily(service: Service, family: IPFamily): string | undefined {
  const spec = service.spec ?? {};
  const families = spec.ipFamilies ?? [];
  if (families.length === 0) {
    const ip = spec.clusterIP ?? "";
    if (ip === "" || ip === "None") return undefined;
    return ipFamilyOf(ip) === family ? ip : undefined;
  }
  const i = families.indexOf(family);
  if (i === -1) return undefined;
  const ip = spec.clusterIPs?.[i];
  return ip === undefined || ip === "" || ip === "None" ? undefined : ip;
}

/** kube-proxy parses CIDRs "sloppily": leading zeros in octets and prefix are decimal. */
export function parseCIDRSloppy(s: string): CIDR | undefined {
  const slash = s.indexOf("/");
  if (slash === -1) return undefined;
  const address = parseIP(s.slice(0, slash), "lenient");
  const p = s.slice(slash + 1);
  if (address === undefined || !/^[0-9]{1,3}$/.test(p)) return undefined;
  const prefix = Number(p);
  if (prefix > (address.family === "IPv4" ? 32 : 128)) return undefined;
  return makeCIDR(address, prefix);
}

/** Shared by every service port without session affinity (most of them). */
const NO_AFFINITY: SessionAffinity = Object.freeze({ kind: "None" });

/** Shared by every service port without such addresses (most of them). */
const NONE: readonly string[] = Object.freeze([]);

function ipsOfFamily(list: readonly string[] | undefined, family: IPFamily): readonly string[] {
  if (list === undefined || list.length === 0) return NONE;
  const out: string[] = [];
  for (const s of list ?? []) {
    const a = parseIP(s, "lenient");
    if (a !== undefined && a.family === family) out.push(canonicalIP(s) as string);
  }
  return out;
}

function sourceRangesOfFamily(
  list: readonly string[] | undefined,
  family: IPFamily,
): readonly string[] {
  if (list === undefined || list.length === 0) return NONE;
  const out: string[] = [];
  for (const raw of list) {
    const cidr = parseCIDRSloppy(raw.trim());
    if (cidr !== undefined && cidr.family === family) out.push(formatCIDR(cidr));
  }
  return out;
}

/**
 * The service ports of `service` for one family, in `spec.ports` order; empty for headless,
 * ExternalName, and services without a ClusterIP of this family.
 */
export function servicePortsForFamily(service: Service, family: IPFamily): ServicePort[] {
  const spec = service.spec ?? {};
  const type = spec.type ?? "ClusterIP";
  if (type === "ExternalName") return [];
  const rawClusterIP = clusterIPForFamily(service, family);
  if (rawClusterIP === undefined) return [];
  const clusterIP = isCanonicalIPv4(rawClusterIP) ? rawClusterIP : canonicalIP(rawClusterIP);
  if (clusterIP === undefined) return [];
  const namespace = service.metadata?.namespace ?? "default";
  const serviceName = service.metadata?.name ?? "";

  const externalIPs = ipsOfFamily(spec.externalIPs, family);
  const ingress = service.status?.loadBalancer?.ingress;
  const loadBalancerVIPs =
    ingress === undefined || ingress.length === 0
      ? NONE
      : ipsOfFamily(
          ingress
            .filter((ing) => ing.ip !== undefined && ing.ip !== "")
            .filter((ing) => ing.ipMode === undefined || ing.ipMode === "VIP")
            .map((ing) => ing.ip as string),
          family,
        );
  const loadBalancerSourceRanges = sourceRangesOfFamily(spec.loadBalancerSourceRanges, family);
  const sessionAffinity: SessionAffinity =
    spec.sessionAffinity === "ClientIP"
      ? {
          kind: "ClientIP",
          timeoutSeconds:
            spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ??
            DEFAULT_AFFINITY_TIMEOUT_SECONDS,
        }
      : NO_AFFINITY;
  const externalPolicyLocal =
    (type === "NodePort" || type === "LoadBalancer") && spec.externalTrafficPolicy === "Local";
  const internalPolicyLocal = spec.internalTrafficPolicy === "Local";
  const healthCheckNodePort =
    type === "LoadBalancer" && externalPolicyLocal ? (spec.healthCheckNodePort ?? 0) : 0;

  return (spec.ports ?? []).map((p): ServicePort => {
    const protocol = (p.protocol ?? "TCP") as Protocol;
    const portName = p.name ?? "";
    const nodePort = p.nodePort ?? 0;
    const externallyAccessible =
      nodePort !== 0 || loadBalancerVIPs.length > 0 || externalIPs.length > 0;
    return {
      namespace,
      serviceName,
      portName,
      protocol,
      lowerProtocol: toLowerProtocol(protocol),
      name: `${namespace}/${serviceName}${portName === "" ? "" : `:${portName}`}`,
      family,
      clusterIP,
      port: p.port,
      nodePort,
      externalIPs,
      loadBalancerVIPs,
      loadBalancerSourceRanges,
      sessionAffinity,
      externalPolicyLocal,
      internalPolicyLocal,
      healthCheckNodePort,
      externallyAccessible,
      usesClusterEndpoints: !internalPolicyLocal || externallyAccessible,
      usesLocalEndpoints: internalPolicyLocal || (externalPolicyLocal && externallyAccessible),
    };
  });
}
