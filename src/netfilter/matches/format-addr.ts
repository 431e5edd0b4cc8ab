/**
 * Address printing as libxtables does it: glibc `inet_ntop` (which, unlike RFC 5952, writes
 * IPv4-compatible addresses `::a.b.c.d` too) and `xtables_ipmask_to_numeric`, which leaves out a
 * full-length prefix.
 */
import { formatIPv4Value, type CIDR, type IPAddress } from "../../net/index.js";

export function formatIPv6Glibc(v: bigint): string {
  const words: number[] = [];
  for (let i = 7; i >= 0; i--) words.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  let bestBase = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      bestBase = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) bestBase = -1;
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (bestBase !== -1 && i >= bestBase && i < bestBase + bestLen) {
      if (i === bestBase) out += ":";
      continue;
    }
    if (i !== 0) out += ":";
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && words[5] === 0xffff))) {
      out += formatIPv4Value(Number(v & 0xffffffffn));
      break;
    }
    out += (words[i] as number).toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out += ":";
  return out;
}

export function formatAddr(a: IPAddress): string {
  return a.family === "IPv4" ? formatIPv4Value(a.value) : formatIPv6Glibc(a.value);
}

/** `net/prefix`, always with the prefix (the `-s`/`-d` save form). */
export function formatCidrSave(c: CIDR): string {
  return `${formatAddr(c.network)}/${c.prefix}`;
}

/**
 * `addr[/prefix]`, the prefix left out for a host (conntrack, ipvs save forms). These modules
 * keep the address as written (host bits too) and mask at match time.
 */
export function formatCidrNoHost(c: CIDR): string {
  const full = c.family === "IPv4" ? 32 : 128;
  return c.prefix === full ? formatAddr(c.address) : `${formatAddr(c.address)}/${c.prefix}`;
}
