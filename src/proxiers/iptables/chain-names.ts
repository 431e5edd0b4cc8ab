/**
 * Chain names of kube-proxy's iptables mode (spec §3). No call site builds a `KUBE-…` string
 * itself: top-level names are the constants of common/chain-names.ts, per-service ones come from
 * the helpers below.
 */
import { chainHash, prefixedChainHash } from "../common/hash.js";
import type { Endpoint } from "../common/endpoint.js";
import type { ServicePort } from "../common/service-port.js";

export {
  KUBE_SERVICES,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FORWARD,
  KUBE_NODEPORTS,
  KUBE_PROXY_FIREWALL,
  KUBE_FIREWALL,
  KUBE_POSTROUTING,
  KUBE_MARK_MASQ,
} from "../common/chain-names.js";

export const SERVICE_CHAIN_PREFIXES = [
  "KUBE-SVC-",
  "KUBE-SVL-",
  "KUBE-EXT-",
  "KUBE-FW-",
  "KUBE-SEP-",
] as const;

export interface ServicePortChains {
  /** Cluster-policy endpoint dispatch. */
  readonly svc: string;
  /** Local-policy endpoint dispatch. */
  readonly svl: string;
  /** Entry for external destinations (NodePort, externalIP, LB). */
  readonly ext: string;
  /** LoadBalancer source-range filter. */
  readonly fw: string;
}

/** The hash input: NAME + lowercase protocol, no separator, no port number. */
export function servicePortHashInput(sp: ServicePort): string {
  return `${sp.name}${sp.lowerProtocol}`;
}

export function servicePortChains(sp: ServicePort): ServicePortChains {
  const h = chainHash(servicePortHashInput(sp));
  return { svc: `KUBE-SVC-${h}`, svl: `KUBE-SVL-${h}`, ext: `KUBE-EXT-${h}`, fw: `KUBE-FW-${h}` };
}

export function endpointChain(sp: ServicePort, ep: Endpoint): string {
  // KUBE-SEP- + hash(servicePortHashInput(sp) + endpoint), made without concatenating.
  return prefixedChainHash("KUBE-SEP-", sp.name, sp.lowerProtocol, ep.endpoint);
}

export function isServiceChainName(name: string): boolean {
  return SERVICE_CHAIN_PREFIXES.some((p) => name.startsWith(p));
}
