/**
 * Chain names of both hostport implementations. Only this file builds `KUBE-HP-…` and
 * `CNI-DN-…` strings.
 *
 * - kubenet (kubelet hostport manager, v1.23): `KUBE-HP-` + kube-proxy's chain hash (the first
 *   16 characters of base32(sha256), proxiers/common/hash.ts) of id + hostPort + PROTOCOL + hostIP,
 *   where the protocol is spelled as in the API and an unset hostIP is "" (so such chains keep
 *   the names they had before v1.23 added hostIP to the hash).
 * - CNI portmap: `CNI-DN-` + lower-case hex of sha512(networkName + containerID), cut so the whole
 *   name is 28 characters, the iptables chain-name limit the plugin observes.
 */
import { createHash } from "node:crypto";
import type { Protocol } from "../net/index.js";
import { KUBE_MARK_MASQ } from "../proxiers/common/chain-names.js";
import { chainHash } from "../proxiers/common/hash.js";

export const KUBE_HOSTPORTS_CHAIN = "KUBE-HOSTPORTS";
export const KUBE_HOSTPORT_CHAIN_PREFIX = "KUBE-HP-";
/** kube-proxy's chain; the hostport manager jumps to it for hairpin traffic but never writes it. */
export const KUBE_MARK_MASQ_CHAIN = KUBE_MARK_MASQ;

export const CNI_HOSTPORT_DNAT_CHAIN = "CNI-HOSTPORT-DNAT";
export const CNI_HOSTPORT_SETMARK_CHAIN = "CNI-HOSTPORT-SETMARK";
export const CNI_HOSTPORT_MASQ_CHAIN = "CNI-HOSTPORT-MASQ";
const CNI_MAX_CHAIN_LENGTH = 28;

export function hostportChainName(
  id: string,
  hostPort: number,
  protocol: Protocol,
  hostIP = "",
): string {
  return KUBE_HOSTPORT_CHAIN_PREFIX + chainHash(`${id}${hostPort}${protocol}${hostIP}`);
}

export function isHostportChainName(name: string): boolean {
  return name.startsWith(KUBE_HOSTPORTS_CHAIN) || name.startsWith(KUBE_HOSTPORT_CHAIN_PREFIX);
}

/** `CNI-<prefix><hash>`, as the plugins' `FormatChainNameWithPrefix` builds it. */
export function cniChainName(
  networkName: string,
  containerID: string,
  prefix: "DN-" | "SN-",
): string {
  const head = `CNI-${prefix}`;
  const digest = createHash("sha512")
    .update(networkName + containerID)
    .digest("hex");
  return head + digest.slice(0, CNI_MAX_CHAIN_LENGTH - head.length);
}

export function portmapDnatChainName(networkName: string, containerID: string): string {
  return cniChainName(networkName, containerID, "DN-");
}
