/**
 * Where everything of a scenario sits, as both the simulator and the netns backend must see it:
 * the node's default interface (the first non-loopback one, as the tracer routes), the
 * external client (per family, the highest free host address of that interface's first subnet
 * of the family, so the node reaches it on-link), and which addresses are pods on this node,
 * the node's own, or the world outside (other nodes' endpoints and any other source address).
 * A probe's source speaks the family of its destination.
 */
import type { NodeEnvironment } from "../model/node-environment.js";
import {
  canonicalIP,
  cidrContains,
  formatIP,
  ipFamilyOf,
  ipv4,
  ipv6,
  parseCIDROrHost,
  parseIP,
  type CIDR,
  type IPFamily,
} from "../net/index.js";
import { isLoopbackInterface } from "../netfilter/trace/dataplane.js";
import type { AttachedPod, Probe, ResolvedSource, Scenario } from "./backend.js";
import { inputIssue, ValidationError, type IssueAt } from "../issue/validation-error.js";

/** A scenario or probe that cannot be laid out on the node (no such pod, no address of the family): bad input. */
export class ScenarioError extends ValidationError {
  constructor(message: string, at?: IssueAt) {
    super([inputIssue("invalid", message, at)]);
    this.name = "ScenarioError";
  }
}

/** One address family's half of the layout (the node's default interface has a subnet of it). */
export interface FamilySide {
  readonly family: IPFamily;
  /** The default interface's subnet of this family. */
  readonly lan: CIDR;
  /** The external client's address (also the node's default gateway) in this family. */
  readonly external: string;
  /** The node's source address for probes from "node" in this family. */
  readonly nodeSource: string;
}

export interface ScenarioLayout {
  readonly defaultInterface: string;
  /** The default interface's subnet the external client and the outside world sit in (the first side's). */
  readonly lan: CIDR;
  /** The external client's address (the first side's). */
  readonly external: string;
  /** The node's source address for probes from "node" (the first side's). */
  readonly nodeSource: string;
  /** Every address of the node, of every family. */
  readonly nodeAddresses: readonly string[];
  /** One side per family the default interface has a subnet of, IPv4 first. */
  readonly sides: readonly FamilySide[];
}

function cidrsOf(node: NodeEnvironment, name: string, family?: IPFamily): CIDR[] {
  const iface = node.interfaces.find((i) => i.name === name);
  return (iface?.addresses ?? [])
    .map((a) => parseCIDROrHost(a))
    .filter((c): c is CIDR => c !== undefined && (family === undefined || c.family === family));
}

/** The highest address of `lan` no one holds (skipping the all-ones one: IPv4's broadcast). */
function freeAddress(lan: CIDR, taken: ReadonlySet<string>): string | undefined {
  const v4 = lan.family === "IPv4";
  const bits = v4 ? 32 : 128;
  const base = v4 ? BigInt(lan.network.value) : (lan.network.value as bigint);
  const last = base | ((1n << BigInt(bits - lan.prefix)) - 1n);
  // Looking far below the top is pointless: a subnet that full has no room for a client.
  for (let v = last - 1n, n = 0; v > base && n < 65536; v--, n++) {
    const candidate = formatIP(v4 ? ipv4(Number(v)) : ipv6(v));
    if (!taken.has(candidate)) return candidate;
  }
  return undefined;
}

/** Every address a pod of the scenario holds (its `ip` first). */
export function podAddresses(pod: AttachedPod): readonly string[] {
  return pod.ips !== undefined && pod.ips.length > 0 ? pod.ips : [pod.ip];
}

export function layoutOf(scenario: Scenario): ScenarioLayout {
  const node = scenario.node;
  const first = node.interfaces.find((i) => !isLoopbackInterface(i.name));
  if (first === undefined)
    throw new ScenarioError("the node environment has no non-loopback interface");
  const nodeAddresses = node.interfaces.flatMap((i) =>
    cidrsOf(node, i.name).map((c) => formatIP(c.address)),
  );
  const taken = new Set([
    ...nodeAddresses,
    ...scenario.pods.flatMap(podAddresses),
    ...scenario.remoteEndpoints,
  ]);
  const sides: FamilySide[] = [];
  for (const family of ["IPv4", "IPv6"] as const) {
    const lan = cidrsOf(node, first.name, family).find(
      (c) => c.prefix < (family === "IPv4" ? 31 : 127),
    );
    if (lan === undefined) continue;
    const external = freeAddress(lan, taken);
    if (external === undefined)
      throw new ScenarioError(
        `no free address in ${first.name}'s ${family} subnet for the external client`,
      );
    const nodeSource =
      node.nodeIPs.find((ip) => parseIP(ip, "lenient")?.family === family) ?? formatIP(lan.address);
    sides.push({ family, lan, external, nodeSource });
  }
  const primary = sides[0];
  if (primary === undefined)
    throw new ScenarioError(
      `interface ${first.name} (the node's default interface) has no IPv4 or IPv6 subnet to attach the external client to`,
    );
  return {
    defaultInterface: first.name,
    lan: primary.lan,
    external: primary.external,
    nodeSource: primary.nodeSource,
    nodeAddresses,
    sides,
  };
}

/** The layout's side of `family`, if the default interface has a subnet of it. */
export function sideOf(layout: ScenarioLayout, family: IPFamily): FamilySide | undefined {
  return layout.sides.find((s) => s.family === family);
}

/** Whether `ip` is inside the default interface's subnet of its family (hosted next to the external client). */
export function onLan(layout: ScenarioLayout, ip: string): boolean {
  const a = parseIP(ip, "lenient");
  return a !== undefined && layout.sides.some((s) => cidrContains(s.lan, a));
}

/** Loopback addresses of the node (127.0.0.0/8 and ::1). */
export function isLoopbackAddress(ip: string): boolean {
  return ip.startsWith("127.") || canonicalIP(ip) === "::1";
}

export function resolveSource(
  scenario: Scenario,
  layout: ScenarioLayout,
  probe: Probe,
): ResolvedSource {
  const from = probe.from;
  // The source speaks the destination's family (a probe to an IPv6 address leaves from IPv6).
  const family = ipFamilyOf(probe.to) ?? layout.sides[0]!.family;
  const side = (): FamilySide => {
    const s = sideOf(layout, family);
    if (s === undefined)
      throw new ScenarioError(
        `probe from ${from} to ${probe.to}: the node's default interface ${layout.defaultInterface} has no ${family} subnet`,
      );
    return s;
  };
  if (from === "node") return { where: "node", ip: side().nodeSource };
  if (from === "external") return { where: "external", ip: side().external };
  if (from.includes("/")) {
    const pod = scenario.pods.find((p) => p.name === from);
    if (pod === undefined) throw new ScenarioError(`probe from ${from}: no such pod on this node`);
    const ip = podAddresses(pod).find((a) => ipFamilyOf(a) === family);
    if (ip === undefined)
      throw new ScenarioError(
        `probe from ${from} to ${probe.to}: the pod has no ${family} address`,
      );
    return { where: "pod", pod: pod.name, ip };
  }
  const ip = parseIP(from, "lenient");
  if (ip === undefined)
    throw new ScenarioError(
      `probe from "${from}": expected ns/pod, node, external or an IP address`,
    );
  const text = formatIP(ip);
  const pod = scenario.pods.find((p) => podAddresses(p).includes(text));
  if (pod !== undefined) return { where: "pod", pod: pod.name, ip: text };
  if (layout.nodeAddresses.includes(text) || isLoopbackAddress(text))
    return { where: "node", ip: text };
  return { where: "external", ip: text };
}
