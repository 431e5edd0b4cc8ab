/**
 * `-p` values. iptables accepts a number, a name from /etc/protocols, or one of its built-in
 * names (`all`, `icmpv6`, ...); `iptables-save` prints the /etc/protocols name of the number
 * when there is one. The table below is Debian's netbase /etc/protocols (what the reference
 * machines have), so printing does not depend on the host running kube-netsim.
 */
import type { L4Protocol } from "../model.js";
import { parseCNumber } from "./values.js";

const ETC_PROTOCOLS: readonly (readonly [string, number])[] = [
  ["icmp", 1],
  ["igmp", 2],
  ["ggp", 3],
  ["ipencap", 4],
  ["st", 5],
  ["tcp", 6],
  ["egp", 8],
  ["igp", 9],
  ["pup", 12],
  ["udp", 17],
  ["hmp", 20],
  ["xns-idp", 22],
  ["rdp", 27],
  ["iso-tp4", 29],
  ["dccp", 33],
  ["xtp", 36],
  ["ddp", 37],
  ["idpr-cmtp", 38],
  ["ipv6", 41],
  ["ipv6-route", 43],
  ["ipv6-frag", 44],
  ["idrp", 45],
  ["rsvp", 46],
  ["gre", 47],
  ["esp", 50],
  ["ah", 51],
  ["skip", 57],
  ["ipv6-icmp", 58],
  ["ipv6-nonxt", 59],
  ["ipv6-opts", 60],
  ["rspf", 73],
  ["vmtp", 81],
  ["eigrp", 88],
  ["ospf", 89],
  ["ax.25", 93],
  ["ipip", 94],
  ["etherip", 97],
  ["encap", 98],
  ["pim", 103],
  ["ipcomp", 108],
  ["vrrp", 112],
  ["l2tp", 115],
  ["isis", 124],
  ["sctp", 132],
  ["fc", 133],
  ["mobility-header", 135],
  ["udplite", 136],
  ["mpls-in-ip", 137],
  ["manet", 138],
  ["hip", 139],
  ["shim6", 140],
  ["wesp", 141],
  ["rohc", 142],
  ["ethernet", 143],
];

/** libxtables' own names, tried after /etc/protocols. */
const XTABLES_NAMES: readonly (readonly [string, number])[] = [
  ["all", 0],
  ["icmpv6", 58],
  ["ipv6-mh", 135],
  ["mh", 135],
];

const byName = new Map<string, number>();
for (const [n, v] of [...XTABLES_NAMES, ...ETC_PROTOCOLS]) byName.set(n, v);
byName.set("ip", 0);
byName.set("hopopt", 0);
const nameOf = new Map<number, string>();
for (const [n, v] of ETC_PROTOCOLS) if (!nameOf.has(v)) nameOf.set(v, n);

/** The protocol number of a `-p` word, or undefined when iptables would reject it. */
export function protocolNumber(word: string): number | undefined {
  // A libxtables number first (`010` is 8, `0x11` is 17), then a name.
  const n = parseCNumber(word);
  if (n !== undefined) return n <= 255 ? n : undefined;
  return byName.get(word.toLowerCase());
}

/** What `iptables-save` prints after `-p` (undefined: nothing, for protocol 0). */
export function protocolSaveName(n: number): string | undefined {
  if (n === 0) return undefined;
  return nameOf.get(n) ?? `${n}`;
}

/** The canonical name used inside the model and by the implicit protocol matches. */
export function protocolCanonical(word: string): string | undefined {
  const n = protocolNumber(word);
  if (n === undefined) return undefined;
  if (n === 0) return "all";
  return nameOf.get(n) ?? `${n}`;
}

const L4_NUMBERS: Readonly<Record<L4Protocol, number>> = {
  tcp: 6,
  udp: 17,
  sctp: 132,
  icmp: 1,
  icmpv6: 58,
};

/** Whether the packet's protocol is the `-p` value (a canonical name from `protocolCanonical`). */
export function packetHasProtocol(p: L4Protocol, canonical: string): boolean {
  if (canonical === "all") return true;
  const n = protocolNumber(canonical);
  return n === L4_NUMBERS[p];
}

/** The module an unknown option implicitly loads under `-p NAME` (tcp, udp, sctp, icmp, icmp6). */
export function implicitModule(canonical: string): string | undefined {
  switch (canonical) {
    case "tcp":
    case "udp":
    case "sctp":
    case "icmp":
      return canonical;
    case "ipv6-icmp":
      return "icmp6";
    default:
      return undefined;
  }
}
