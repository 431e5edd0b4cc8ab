/**
 * nftables object names (spec §4): `H-ns/svc/proto/port[__ip/port]`, H = the first 8 base32
 * characters of SHA-256 of the rest. Different from the iptables names (input and length).
 */
import { chainHash } from "../common/hash.js";
import type { Endpoint } from "../common/endpoint.js";
import type { ServicePort } from "../common/service-port.js";

const MAX_NAME = 240;

function hashed(rest: string): string {
  const name = `${chainHash(rest).slice(0, 8)}-${rest}`;
  return name.length > MAX_NAME ? `${name.slice(0, MAX_NAME - 3)}...` : name;
}

export function servicePortBase(sp: ServicePort): string {
  return hashed(`${sp.namespace}/${sp.serviceName}/${sp.lowerProtocol}/${sp.portName}`);
}

export function endpointBase(sp: ServicePort, ep: Endpoint): string {
  const ip = ep.ip.replaceAll(":", ".");
  return hashed(
    `${sp.namespace}/${sp.serviceName}/${sp.lowerProtocol}/${sp.portName}__${ip}/${ep.port}`,
  );
}

export interface ServicePortChains {
  readonly cluster: string;
  readonly local: string;
  readonly external: string;
  readonly firewall: string;
}

export function servicePortChains(sp: ServicePort): ServicePortChains {
  const base = servicePortBase(sp);
  return {
    cluster: `service-${base}`,
    local: `local-${base}`,
    external: `external-${base}`,
    firewall: `firewall-${base}`,
  };
}

/** An endpoint's chain and affinity set, from its `endpointBase` (a caller may reuse one). */
export const endpointChainOf = (base: string): string => `endpoint-${base}`;
export const affinitySetOf = (base: string): string => `affinity-${base}`;

export const endpointChain = (sp: ServicePort, ep: Endpoint): string =>
  endpointChainOf(endpointBase(sp, ep));
export const affinitySet = (sp: ServicePort, ep: Endpoint): string =>
  affinitySetOf(endpointBase(sp, ep));
