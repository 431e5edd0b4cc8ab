/**
 * The node a packet is traced on: its rule sets (one per IP family), ipsets, interfaces with
 * their addresses, and optional models of state the rules consult (recent lists, nfacct
 * objects, IPVS). Plain data in, so src/netfilter stays Kubernetes-agnostic: the CLI builds
 * it from a NodeEnvironment (`interfaces`, `kernel.nfacct`) and a saved or rendered rule set.
 *
 * ## IPVS hook
 * The kernel's IPVS sits at LOCAL_IN (after filter INPUT) for packets that arrive from
 * outside, and at LOCAL_OUT (after the OUTPUT chains) for locally generated packets. When a
 * NEW packet reaches one of those points and `ipvs.schedule` returns a decision, the tracer
 * branches once per real server (probability weight / total weight, weight-0 servers never
 * get new connections), rewrites the destination to the real server (a DNAT outcome), and
 * sends the packet on through OUTPUT (mangle, filter) and POSTROUTING (mangle, nat, where
 * KUBE-POSTROUTING masquerades) with `-m ipvs` seeing `--ipvs --vaddr/--vport/--vproto`.
 * A virtual server with no usable real server answers with ICMP port unreachable: REJECT.
 */
import {
  cidrContains,
  parseCIDROrHost,
  parseIP,
  type CIDR,
  type IPAddress,
  type IPFamily,
} from "../../net/index.js";
import type { IpsetKey, L4Protocol, RuleSet } from "../model.js";
import type { Table as NftTable } from "../nftables/model.js";
import { inputIssue, ValidationError } from "../../issue/validation-error.js";

/**
 * A route of the main table, in `ip -j route`'s words: `dst` is "default" or a CIDR, with a
 * `gateway` (the next hop) and/or a `dev` (the outgoing interface; from the gateway's
 * connected prefix when left out). Connected routes (each interface address's prefix) are
 * implied and need not be listed.
 */
export interface DataplaneRoute {
  readonly dst: string;
  readonly gateway?: string;
  readonly dev?: string;
}

/** A route as the walk uses it. */
export interface RouteEntry {
  readonly cidr: CIDR;
  readonly gateway: IPAddress | undefined;
  readonly dev: string;
}

export interface DataplaneInterface {
  readonly name: string;
  /** CIDR strings (`192.168.0.2/24`); a bare address is a host address. */
  readonly addresses: readonly string[];
}

/** ipset membership as the set match needs it (an adapter over the ipset model). */
export interface IpsetMembership {
  /** undefined when no set of that name exists. */
  test(setName: string, key: IpsetKey): boolean | undefined;
}

/** A `recent` list that already holds an address (assumption supplied by the caller). */
export interface RecentEntry {
  readonly name: string;
  readonly address: string;
}

export interface IpvsVirtualServerRef {
  readonly address: IPAddress;
  readonly port: number;
  readonly protocol: L4Protocol;
}
export interface IpvsRealServerRef {
  readonly address: IPAddress;
  readonly port: number;
  readonly weight: number;
}
export interface IpvsDecision {
  readonly virtualServer: IpvsVirtualServerRef;
  readonly realServers: readonly IpvsRealServerRef[];
}
/** What IPVS needs to see of a packet. */
export interface IpvsPacketView {
  readonly family: IPFamily;
  readonly protocol: L4Protocol;
  readonly src: IPAddress;
  readonly sport: number;
  readonly dst: IPAddress;
  readonly dport: number;
  readonly mark: number;
  /** "LOCAL_IN" for packets from outside, "LOCAL_OUT" for locally generated ones. */
  readonly hookPoint: "LOCAL_IN" | "LOCAL_OUT";
}
export interface IpvsHook {
  /** The virtual server this packet addresses and its real servers, or undefined if none. */
  schedule(packet: IpvsPacketView): IpvsDecision | undefined;
}

export interface NodeDataplaneInput {
  /** At most one rule set per family. */
  readonly ruleSets: readonly RuleSet[];
  readonly interfaces: readonly DataplaneInterface[];
  readonly ipsets?: IpsetMembership;
  /** Names of nfacct objects that exist. */
  readonly nfacct?: readonly string[];
  /** Addresses already in `recent` lists (for every scenario). */
  readonly recent?: readonly RecentEntry[];
  /**
   * Where packets to non-connected destinations leave when no route says (no default route):
   * default the first non-loopback interface, with the destination as the next hop.
   */
  readonly defaultInterface?: string;
  /** Routes besides the connected ones (default: none). */
  readonly routes?: readonly DataplaneRoute[];
  readonly ipvs?: IpvsHook;
  /** nftables tables (e.g. kube-proxy's); their base chains run among the iptables tables. */
  readonly nftables?: readonly NftTable[];
}

export interface LocalAddress {
  readonly interfaceName: string;
  readonly cidr: CIDR;
  /** On a loopback interface the whole prefix is local (`local 127.0.0.0/8 dev lo`). */
  readonly wholePrefixLocal: boolean;
}

export interface NodeDataplane {
  readonly ruleSets: Readonly<Partial<Record<IPFamily, RuleSet>>>;
  readonly interfaces: readonly DataplaneInterface[];
  readonly addresses: readonly LocalAddress[];
  readonly ipsets?: IpsetMembership;
  readonly nfacct: ReadonlySet<string>;
  readonly recent: readonly { readonly name: string; readonly address: IPAddress }[];
  readonly defaultInterface: string;
  readonly routes: readonly RouteEntry[];
  readonly ipvs?: IpvsHook;
  readonly nftables?: readonly NftTable[];
}

/** A node description (rule sets, interfaces, routes) that is not one: bad input. */
export class DataplaneError extends ValidationError {
  constructor(message: string) {
    super([inputIssue("invalid", message)]);
    this.name = "DataplaneError";
  }
}

export function isLoopbackInterface(name: string): boolean {
  return name === "lo";
}

export function buildDataplane(input: NodeDataplaneInput): NodeDataplane {
  const ruleSets: Partial<Record<IPFamily, RuleSet>> = {};
  for (const rs of input.ruleSets) {
    if (ruleSets[rs.family] !== undefined)
      throw new DataplaneError(`two ${rs.family} rule sets given; a node has one per family`);
    ruleSets[rs.family] = rs;
  }
  const addresses: LocalAddress[] = [];
  for (const iface of input.interfaces) {
    for (const a of iface.addresses) {
      const cidr = parseCIDROrHost(a);
      if (cidr === undefined)
        throw new DataplaneError(`interface ${iface.name}: "${a}" is not an IP address or CIDR`);
      addresses.push({
        interfaceName: iface.name,
        cidr,
        wholePrefixLocal: isLoopbackInterface(iface.name),
      });
    }
  }
  const recent = (input.recent ?? []).map((r) => {
    const address = parseIP(r.address, "lenient");
    if (address === undefined)
      throw new DataplaneError(`recent list ${r.name}: "${r.address}" is not an IP address`);
    return { name: r.name, address };
  });
  const defaultInterface =
    input.defaultInterface ??
    input.interfaces.find((i) => !isLoopbackInterface(i.name))?.name ??
    "eth0";
  return {
    ruleSets,
    routes: (input.routes ?? []).map((r) => routeEntry(r, addresses, defaultInterface)),
    interfaces: input.interfaces,
    addresses,
    ...(input.ipsets !== undefined ? { ipsets: input.ipsets } : {}),
    nfacct: new Set(input.nfacct ?? []),
    recent,
    defaultInterface,
    ...(input.ipvs !== undefined ? { ipvs: input.ipvs } : {}),
    ...(input.nftables !== undefined ? { nftables: input.nftables } : {}),
  };
}

/** A route's destination, next hop and device, checked. */
function routeEntry(
  r: DataplaneRoute,
  addresses: readonly LocalAddress[],
  defaultInterface: string,
): RouteEntry {
  const what = `route ${r.dst}`;
  const gateway = r.gateway === undefined ? undefined : parseIP(r.gateway, "lenient");
  if (r.gateway !== undefined && gateway === undefined)
    throw new DataplaneError(`${what}: gateway "${r.gateway}" is not an IP address`);
  const family: IPFamily = gateway?.family ?? (r.dst.includes(":") ? "IPv6" : "IPv4");
  const cidr =
    r.dst === "default"
      ? parseCIDROrHost(family === "IPv4" ? "0.0.0.0/0" : "::/0")!
      : parseCIDROrHost(r.dst);
  if (cidr === undefined)
    throw new DataplaneError(`${what}: dst must be "default" or an IP address or CIDR`);
  if (gateway !== undefined && gateway.family !== cidr.family)
    throw new DataplaneError(`${what}: gateway ${r.gateway} is not of the route's family`);
  let dev = r.dev;
  if (dev === undefined && gateway !== undefined) {
    let best = -1;
    for (const a of addresses)
      if (a.cidr.prefix > best && cidrContains(a.cidr, gateway)) {
        dev = a.interfaceName;
        best = a.cidr.prefix;
      }
  }
  if (dev === undefined && gateway === undefined)
    throw new DataplaneError(`${what}: needs a gateway or a dev`);
  return { cidr, gateway, dev: dev ?? defaultInterface };
}
