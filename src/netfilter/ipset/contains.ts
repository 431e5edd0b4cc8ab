/**
 * Set membership as the kernel's `set` match tests it. Each key part is taken by the dimension
 * at its position (an `endpoint` part gives its address to ip/net dimensions and its
 * protocol/port to port dimensions); a key shorter than the set's dimension never matches, and
 * neither does an address of the other family. Net dimensions match the most specific prefix
 * that has an entry, and a `nomatch` entry there means "not a member".
 */
import { cidrContains, type IPAddress } from "../../net/index.js";
import type { IpsetKey, IpsetKeyPart, L4Protocol } from "../model.js";
import { ipsetDimensions, type Ipset, type IpsetEntryPart } from "./model.js";

type Resolved = { readonly ip?: IPAddress; readonly protocol?: L4Protocol; readonly port?: number };

function resolve(p: IpsetKeyPart): Resolved {
  switch (p.kind) {
    case "ip":
      return { ip: p.ip };
    case "port":
      return { protocol: p.protocol, port: p.port };
    case "endpoint":
      return { ip: p.ip, protocol: p.protocol, port: p.port };
  }
}

function partHolds(e: IpsetEntryPart, k: Resolved): boolean {
  switch (e.kind) {
    case "ip":
      return k.ip !== undefined && k.ip.family === e.ip.family && k.ip.value === e.ip.value;
    case "net":
      return k.ip !== undefined && cidrContains(e.cidr, k.ip);
    case "port":
      if (k.port !== e.port || k.protocol === undefined) return false;
      // bitmap:port reads the port of TCP and UDP packets only (the kernel's ip_set_get_ip_port
      // in ip_set_getport.c), which is why kube-proxy needs hash:ip,port sets for SCTP NodePorts.
      return e.protocol === undefined
        ? ["tcp", "udp"].includes(k.protocol)
        : e.protocol === k.protocol;
  }
}

export function ipsetContains(set: Ipset, key: IpsetKey): boolean {
  const dims = ipsetDimensions(set.type);
  if (key.length < dims.length) return false;
  const resolved = key.slice(0, dims.length).map(resolve);
  if (
    set.type !== "bitmap:port" &&
    resolved.some((r, i) => dims[i] !== "port" && r.ip?.family !== set.family)
  )
    return false;
  let best: { prefix: number; nomatch: boolean } | undefined;
  for (const e of set.entries) {
    if (!e.parts.every((p, i) => partHolds(p, resolved[i] as Resolved))) continue;
    const net = e.parts.find((p) => p.kind === "net");
    if (net === undefined) return true;
    const prefix = net.cidr.prefix;
    if (best === undefined || prefix > best.prefix) best = { prefix, nomatch: e.nomatch };
  }
  return best !== undefined && !best.nomatch;
}

/** Looks a set up by name; undefined when there is no such set (the kernel would refuse the rule). */
export function ipsetTest(
  sets: readonly Ipset[],
  name: string,
  key: IpsetKey,
): boolean | undefined {
  const s = sets.find((x) => x.name === name);
  return s === undefined ? undefined : ipsetContains(s, key);
}
