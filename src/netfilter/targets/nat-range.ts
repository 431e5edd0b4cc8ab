/**
 * `--to-destination`/`--to-source` values: `ip[-ip][:port[-port]]`; IPv6 writes the addresses in
 * brackets when a port follows (`[fd00::1]:80`). Ports need a protocol that has them.
 */
import type { IPFamily } from "../../net/index.js";
import { fail, type BuildEnv } from "../matches/extension.js";
import { formatAddr } from "../matches/format-addr.js";
import { parseIPOf, parsePort } from "../matches/values.js";
import type { NatRange } from "./index.js";
import type { PortRange } from "../../net/index.js";

const PORT_PROTOCOLS = ["tcp", "udp", "sctp", "dccp", "udplite"];

/**
 * Port ranges are immutable and few (every DNAT of a service names the same target port), so
 * equal ones share an object: one less for the garbage collector to move per NAT rule of a
 * large dump. Bounded, as it outlives a parse.
 */
const portRanges = new Map<number, PortRange>();
const PORT_RANGES = 4096;

function portRange(from: number, to: number): PortRange {
  const key = from * 65536 + to;
  let r = portRanges.get(key);
  if (r === undefined) {
    if (portRanges.size >= PORT_RANGES) portRanges.clear();
    portRanges.set(key, (r = { from, to }));
  }
  return r;
}

export function parsePortRangeDash(s: string, what: string): PortRange {
  // `a-b/base` (shifted ports, NAT revision 2) loads, and is not modelled.
  if (s.includes("/")) fail(`${what}: a port range with a base port ("${s}") is not modelled`);
  const dash = s.indexOf("-");
  const from = parsePort(dash === -1 ? s : s.slice(0, dash), "xtables");
  const to = dash === -1 ? from : parsePort(s.slice(dash + 1), "xtables");
  if (from === undefined || to === undefined || from > to)
    fail(`${what}: invalid port range "${s}"`);
  // The kernel takes port 0 (iptables-nft 1.8.9 saves it back); what it maps to is not modelled.
  if (from === 0) fail(`${what}: port 0 in "${s}" is not modelled`);
  return portRange(from, to);
}

export function requirePortProtocol(env: BuildEnv, what: string): void {
  const p = env.protocol;
  if (p === undefined || p.negated || !PORT_PROTOCOLS.includes(p.value))
    fail(`${what}: need TCP, UDP, SCTP or DCCP with port specification`);
}

export function parseNatRange(s: string, env: BuildEnv, what: string): NatRange {
  let addrPart: string;
  let portPart: string | undefined;
  if (env.family === "IPv6") {
    if (s.startsWith("[")) {
      const close = s.indexOf("]");
      if (close === -1) fail(`${what}: invalid address "${s}"`);
      addrPart = s.slice(1, close);
      const rest = s.slice(close + 1);
      if (rest !== "") {
        if (!rest.startsWith(":")) fail(`${what}: invalid address "${s}"`);
        portPart = rest.slice(1);
      }
    } else addrPart = s;
  } else {
    const colon = s.indexOf(":");
    addrPart = colon === -1 ? s : s.slice(0, colon);
    portPart = colon === -1 ? undefined : s.slice(colon + 1);
  }
  let range: { -readonly [K in keyof NatRange]: NatRange[K] } = {};
  if (addrPart !== "") {
    const dash = addrPart.indexOf("-");
    // NAT ranges take plain decimal octets (see NumberForm).
    const at = (t: string) => parseIPOf(t, env.family, what, "decimal");
    const from = at(dash === -1 ? addrPart : addrPart.slice(0, dash));
    const to = dash === -1 ? from : at(addrPart.slice(dash + 1));
    // The kernel takes a reversed range (and saves it back); how it maps one is not modelled.
    if (to.value < from.value)
      fail(`${what}: a reversed address range ("${addrPart}") is not modelled`);
    range = { ipFrom: from, ipTo: to };
  }
  if (portPart !== undefined) {
    requirePortProtocol(env, what);
    range.ports = parsePortRangeDash(portPart, what);
  }
  if (range.ipFrom === undefined && range.ports === undefined)
    fail(`${what}: invalid range "${s}"`);
  return range;
}

export function formatNatRange(r: NatRange, family: IPFamily): string {
  const brackets = family === "IPv6" && r.ports !== undefined;
  let out = "";
  if (r.ipFrom !== undefined) {
    out += brackets ? "[" : "";
    out += formatAddr(r.ipFrom);
    if (r.ipTo !== undefined && r.ipTo.value !== r.ipFrom.value) out += `-${formatAddr(r.ipTo)}`;
    out += brackets ? "]" : "";
  }
  if (r.ports !== undefined)
    out += r.ports.from === r.ports.to ? `:${r.ports.from}` : `:${r.ports.from}-${r.ports.to}`;
  return out;
}
