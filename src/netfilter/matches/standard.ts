/**
 * The options every rule has: `[!] -p`, `[!] -s`, `[!] -d`, `[!] -i`, `[!] -o`, `[!] -f`.
 * An interface name ending in `+` matches every interface with that prefix. A rule of the other
 * address family never matches.
 */
import { cidrContains } from "../../net/index.js";
import type { Negatable, Packet, Rule } from "../model.js";
import { packetHasProtocol } from "./protocol.js";

/** `eth+` matches `eth0`; an empty packet interface (not known at this hook) matches nothing. */
export function interfaceMatches(pattern: string, name: string): boolean {
  if (pattern.endsWith("+")) return name.startsWith(pattern.slice(0, -1));
  return name === pattern;
}

function neg(n: Negatable<unknown> | undefined, holds: () => boolean): boolean {
  return n === undefined || holds() !== n.negated;
}

export function ruleMatchesStandard(rule: Rule, packet: Packet): boolean {
  const { source, destination, protocol, inInterface, outInterface, fragment } = rule;
  if (source !== undefined && source.value.family !== packet.family) return false;
  if (destination !== undefined && destination.value.family !== packet.family) return false;
  return (
    neg(protocol, () =>
      packetHasProtocol(packet.protocol, (protocol as Negatable<string>).value),
    ) &&
    neg(source, () => cidrContains(source!.value, packet.src)) &&
    neg(destination, () => cidrContains(destination!.value, packet.dst)) &&
    neg(inInterface, () => interfaceMatches(inInterface!.value, packet.inInterface)) &&
    neg(outInterface, () => interfaceMatches(outInterface!.value, packet.outInterface)) &&
    neg(fragment, () => packet.fragment)
  );
}
