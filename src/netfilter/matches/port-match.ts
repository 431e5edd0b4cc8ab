/**
 * What tcp, udp and sctp share: `[!] --sport a[:b]` and `[!] --dport a[:b]`, the need for a
 * matching `-p`, and the rule that a non-first fragment never matches (it has no ports).
 */
import type { PortRange } from "../../net/index.js";
import type { Negatable, Packet } from "../model.js";
import { DPORT, SPORT, type FieldSet } from "../packet-fields.js";
import {
  fail,
  NEG_ARG,
  type BuildEnv,
  type MatchCheck,
  type OptionSpec,
  type ParsedOption,
} from "./extension.js";
import { formatPortRange, parsePortSpec } from "./values.js";

export const PORT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "--sport": NEG_ARG,
  "--dport": NEG_ARG,
};
export const PORT_ALIASES: Readonly<Record<string, string>> = {
  "--source-port": "--sport",
  "--destination-port": "--dport",
};

export function requireProtocol(env: BuildEnv, proto: string, label: string): void {
  const p = env.protocol;
  if (p === undefined || p.negated || p.value !== proto)
    fail(`${label} match requires '-p ${proto}'`);
}

/**
 * A port option of `what`: tcp and sctp read numbers as libxtables does and refuse a reversed
 * range; udp reads them as a service and keeps it (see PortForm).
 */
export function portOption(o: ParsedOption, what: "tcp" | "udp" | "sctp"): Negatable<PortRange> {
  const arg = o.args[0] as string;
  const value =
    what === "udp"
      ? parsePortSpec(arg, what, "keep", "service")
      : parsePortSpec(arg, what, "refuse", "xtables");
  return { value, negated: o.negated };
}

function formatOne(name: string, r: Negatable<PortRange> | undefined): string {
  if (r === undefined) return "";
  // The kernel struct cannot tell "0:65535" from "not given", so the save form leaves it out.
  if (r.value.from === 0 && r.value.to === 65535 && !r.negated) return "";
  return `${r.negated ? "! " : ""}${name} ${formatPortRange(r.value)}`;
}

export function formatPorts(
  sport: Negatable<PortRange> | undefined,
  dport: Negatable<PortRange> | undefined,
): string[] {
  const out: string[] = [];
  const s = formatOne("--sport", sport);
  if (s !== "") out.push(s);
  const d = formatOne("--dport", dport);
  if (d !== "") out.push(d);
  return out;
}

function inRange(port: number, r: Negatable<PortRange> | undefined): boolean {
  if (r === undefined) return true;
  return (port >= r.value.from && port <= r.value.to) !== r.negated;
}

export function portsHold(
  packet: Packet,
  sport: Negatable<PortRange> | undefined,
  dport: Negatable<PortRange> | undefined,
): boolean {
  return inRange(packet.sport, sport) && inRange(packet.dport, dport);
}

/** The fields a `--sport`/`--dport` pair reads (packet-fields.ts). */
export function portReads(
  sport: Negatable<PortRange> | undefined,
  dport: Negatable<PortRange> | undefined,
): FieldSet {
  return (sport !== undefined ? SPORT : 0) | (dport !== undefined ? DPORT : 0);
}

/**
 * The compiled form of `-m PROTO [--sport] [--dport]` without other options (`evaluate`'s test).
 * Without ports it is one closure per protocol, and a `--dport` alone one closure per range
 * (captured as numbers), shared by every such rule: a new connection meets rules no recent
 * packet touched, and every object a check reaches (its closure, the range it reads) is
 * another load from memory.
 */
export function compilePorts(
  proto: "tcp" | "udp",
  sport: Negatable<PortRange> | undefined,
  dport: Negatable<PortRange> | undefined,
): MatchCheck {
  if (sport !== undefined)
    return (p) =>
      p.protocol === proto && !p.fragment && inRange(p.sport, sport) && inRange(p.dport, dport)
        ? 1
        : 0;
  if (dport === undefined) return PROTOCOL_ONLY[proto];
  const { from, to } = dport.value;
  const negated = dport.negated;
  const key = `${proto} ${from} ${to} ${negated}`;
  let check = DPORT_CHECKS.get(key);
  if (check === undefined) {
    check = (p) =>
      p.protocol === proto && !p.fragment && (p.dport >= from && p.dport <= to) !== negated ? 1 : 0;
    DPORT_CHECKS.set(key, check);
  }
  return check;
}

/**
 * The `--dport` checks made so far, one per protocol and range: rules with the same port
 * (every service on port 80) share one closure, which stays in the processor's caches.
 */
const DPORT_CHECKS = new Map<string, MatchCheck>();

const PROTOCOL_ONLY: Readonly<Record<"tcp" | "udp", MatchCheck>> = {
  tcp: (p) => (p.protocol === "tcp" && !p.fragment ? 1 : 0),
  udp: (p) => (p.protocol === "udp" && !p.fragment ? 1 : 0),
};

/** A positive `--dport` of one port: the only destination port the match holds for. */
export function singlePort(dport: Negatable<PortRange> | undefined): number | undefined {
  return dport !== undefined && !dport.negated && dport.value.from === dport.value.to
    ? dport.value.from
    : undefined;
}
