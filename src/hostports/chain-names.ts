/**
 * Chain names of both hostport implementations. Only this file builds `KUBE-HP-…` and
 * `CNI-DN-…` strings.
 *
 * - kubenet (kubelet hostport manager, v1.23): `KUBE-HP-` + the first 16 characters of
 *   base32 (RFC 4648 standard alphabet, upper case) of sha256(id + hostPort + PROTOCOL + hostIP),
 *   where the protocol is spelled as in the API and an unset hostIP is "" (so such chains keep
 *   the names they had before v1.23 added hostIP to the hash).
 * - CNI portmap: `CNI-DN-` + lower-case hex of sha512(networkName + containerID), cut so the whole
 *   name is 28 characters, the iptables chain-name limit the plugin observes.
 */
import { createHash } from "node:crypto";
import type { Protocol } from "../net/index.js";

export const KUBE_HOSTPORTS_CHAIN = "KUBE-HOSTPORTS";
export const KUBE_HOSTPORT_CHAIN_PREFIX = "KUBE-HP-";
/** kube-proxy's chain; the hostport manager jumps to it for hairpin traffic but never writes it. */
export const KUBE_MARK_MASQ_CHAIN = "KUBE-MARK-MASQ";

export const CNI_HOSTPORT_DNAT_CHAIN = "CNI-HOSTPORT-DNAT";
export const CNI_HOSTPORT_SETMARK_CHAIN = "CNI-HOSTPORT-SETMARK";
export const CNI_HOSTPORT_MASQ_CHAIN = "CNI-HOSTPORT-MASQ";
const CNI_MAX_CHAIN_LENGTH = 28;

const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding (the padding never reaches the 16 characters we keep). */
export function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

export function hostportChainName(
  id: string,
  hostPort: number,
  protocol: Protocol,
  hostIP = "",
): string {
  const digest = createHash("sha256").update(`${id}${hostPort}${protocol}${hostIP}`).digest();
  return KUBE_HOSTPORT_CHAIN_PREFIX + base32(digest).slice(0, 16);
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
