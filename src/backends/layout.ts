/**
 * Where everything of a scenario sits, as both the simulator and the netns backend must see it:
 * the node's default interface (the first non-loopback one, as the tracer routes), the
 * external client (the highest free host address of that interface's first IPv4 subnet, so the
 * node reaches it on-link), and which addresses are pods on this node, the node's own, or the
 * world outside (other nodes' endpoints and any other source address).
 */
import type { NodeEnvironment } from "../model/node-environment.js";
import {
  cidrContains,
  formatIP,
  ipv4,
  maskValue4,
  parseCIDROrHost,
  parseIP,
  type CIDR,
} from "../net/index.js";
import { isLoopbackInterface } from "../netfilter/trace/dataplane.js";
import type { Probe, ResolvedSource, Scenario } from "./backend.js";

export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScenarioError";
  }
}

export interface ScenarioLayout {
  readonly defaultInterface: string;
  /** The default interface's subnet the external client and the outside world sit in. */
  readonly lan: CIDR;
  /** The external client's address (also the node's default gateway). */
  readonly external: string;
  /** The node's source address for probes from "node". */
  readonly nodeSource: string;
  /** Every IPv4 address of the node. */
  readonly nodeAddresses: readonly string[];
}

function v4Cidrs(node: NodeEnvironment, name: string): CIDR[] {
  const iface = node.interfaces.find((i) => i.name === name);
  return (iface?.addresses ?? [])
    .map((a) => parseCIDROrHost(a))
    .filter((c): c is CIDR => c !== undefined && c.family === "IPv4");
}

export function layoutOf(scenario: Scenario): ScenarioLayout {
  const node = scenario.node;
  const first = node.interfaces.find((i) => !isLoopbackInterface(i.name));
  if (first === undefined)
    throw new ScenarioError("the node environment has no non-loopback interface");
  const lan = v4Cidrs(node, first.name).find((c) => c.prefix < 31);
  if (lan === undefined)
    throw new ScenarioError(
      `interface ${first.name} (the node's default interface) has no IPv4 subnet to attach the external client to`,
    );
  const nodeAddresses = node.interfaces.flatMap((i) =>
    v4Cidrs(node, i.name).map((c) => formatIP(c.address)),
  );
  const taken = new Set([
    ...nodeAddresses,
    ...scenario.pods.map((p) => p.ip),
    ...scenario.remoteEndpoints,
  ]);
  const base = lan.network.value as number;
  const broadcast = (base | ~maskValue4(lan.prefix)) >>> 0;
  let external: string | undefined;
  for (let v = broadcast - 1; v > base; v--) {
    const candidate = formatIP(ipv4(v));
    if (!taken.has(candidate)) {
      external = candidate;
      break;
    }
  }
  if (external === undefined)
    throw new ScenarioError(`no free address in ${first.name}'s subnet for the external client`);
  const nodeSource =
    node.nodeIPs.find((ip) => parseIP(ip, "lenient")?.family === "IPv4") ?? formatIP(lan.address);
  return { defaultInterface: first.name, lan, external, nodeSource, nodeAddresses };
}

/** Whether `ip` is inside the default interface's subnet (hosted next to the external client). */
export function onLan(layout: ScenarioLayout, ip: string): boolean {
  const a = parseIP(ip, "lenient");
  return a !== undefined && cidrContains(layout.lan, a);
}

export function resolveSource(
  scenario: Scenario,
  layout: ScenarioLayout,
  probe: Probe,
): ResolvedSource {
  const from = probe.from;
  if (from === "node") return { where: "node", ip: layout.nodeSource };
  if (from === "external") return { where: "external", ip: layout.external };
  if (from.includes("/")) {
    const pod = scenario.pods.find((p) => p.name === from);
    if (pod === undefined) throw new ScenarioError(`probe from ${from}: no such pod on this node`);
    return { where: "pod", pod: pod.name, ip: pod.ip };
  }
  const ip = parseIP(from, "lenient");
  if (ip === undefined)
    throw new ScenarioError(
      `probe from "${from}": expected ns/pod, node, external or an IP address`,
    );
  const text = formatIP(ip);
  const pod = scenario.pods.find((p) => p.ip === text);
  if (pod !== undefined) return { where: "pod", pod: pod.name, ip: text };
  if (layout.nodeAddresses.includes(text) || text.startsWith("127."))
    return { where: "node", ip: text };
  return { where: "external", ip: text };
}
