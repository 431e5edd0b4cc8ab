/**
 * A scenario's node built in namespaces this process creates:
 *
 *   pod namespaces --veth (node side named as the scenario says)--+
 *                                                                  node --default interface (veth)-- world --veth-- remote
 *
 * - node: the node environment's interfaces in its order (the default one, the first
 *   non-loopback, is a veth to `world`; the others are port-less bridges holding their addresses: this kernel may lack the dummy type), a
 *   default route via the external client, forwarding on, kube-proxy's sysctls, the rules.
 * - one namespace per pod: `eth0` with the pod's IP. A pod inside a node interface's subnet
 *   (a pod bridge such as cni0) gets that prefix and the bridge address as gateway; the node
 *   side holds the bridge address as /32 (so a hairpin MASQUERADE picks it, as it would on the
 *   bridge), a /32 route to the pod, and proxy ARP (pods reach each other through the node).
 *   Any other pod is routed like Calico's: /32, gateway 169.254.1.1 on-link.
 * - world: the external client on the default interface's subnet (also the node's gateway),
 *   other nodes' endpoints in that subnet, and any other probe source address.
 * - remote: other nodes' endpoints outside that subnet, routed by `world`.
 * Both families are built where the scenario has them (IPv6 addresses with `nodad`, so they are
 * usable at once, and DAD off in every namespace): the external client per family, on that
 * family's subnet of the default interface; an IPv6 pod holds its address as /128 with its
 * default route via the node side (the bridge address, or fe80::1 for Calico-style pods), so
 * no neighbour proxying is needed. Every namespace runs a probe server on each of its addresses.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import {
  cidrContains,
  formatIP,
  ipFamilyOf,
  parseCIDROrHost,
  parseIP,
  type CIDR,
  type IPFamily,
} from "../../net/index.js";
import { isLoopbackInterface } from "../../netfilter/trace/dataplane.js";
import type { AttachedPod, Scenario } from "../backend.js";
import type { ScenarioLayout } from "../layout.js";
import { onLan, podAddresses, ScenarioError } from "../layout.js";
import { startServer } from "../linux/topology.js";
import { IpScript } from "../ip-script.js";
import { createNetnsGroup, deleteNetnsGroup, type Netns } from "../netns.js";

export type Role = "node" | "world" | "remote" | "pod";

export interface Place {
  readonly role: Role;
  readonly ns: Netns;
  readonly addresses: string[];
  /** Ports a server already listens on in this namespace. */
  readonly listening: Set<number>;
}

export interface ScenarioTopology {
  readonly node: Place;
  readonly world: Place;
  readonly remote?: Place;
  readonly pods: ReadonlyMap<string, Place>;
  readonly children: ChildProcess[];
}

const POD_GATEWAY = "169.254.1.1";
/** The IPv6 gateway of a pod outside every node subnet: link-local, on the node's side of its veth. */
const POD_GATEWAY6 = "fe80::1";
const REMOTE_LINK = { world: "169.254.253.1", remote: "169.254.253.2", prefix: 30 };
const REMOTE_LINK6 = { world: "fd00:fe:253::1", remote: "fd00:fe:253::2", prefix: 64 };

/** `ip addr add` arguments for an address: IPv6 ones with nodad (usable at once). */
function addrArgs(address: string, prefix: number, dev: string): string[] {
  const v6 = ipFamilyOf(address) === "IPv6";
  return ["addr", "add", `${address}/${prefix}`, "dev", dev, ...(v6 ? ["nodad"] : [])];
}

const hostPrefix = (address: string): number => (ipFamilyOf(address) === "IPv6" ? 128 : 32);

/** The default route of a family, written out: `ip -batch` lines take no -4/-6. */
const DEFAULT_ROUTE: Record<IPFamily, string> = { IPv4: "0.0.0.0/0", IPv6: "::/0" };

/** One `ip` command outside a set-up script (an outside address added while probing). */
function ip(args: readonly string[]): void {
  const r = spawnSync("ip", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr || String(r.error)}`);
}

function cidrs(addresses: readonly string[], family?: IPFamily): CIDR[] {
  return addresses
    .map((a) => parseCIDROrHost(a))
    .filter((c): c is CIDR => c !== undefined && (family === undefined || c.family === family));
}

/** Link-local and loopback addresses the kernel gives by itself. */
function automatic(c: CIDR): boolean {
  const text = formatIP(c.address);
  return text.startsWith("127.") || text === "::1" || /^fe[89ab][0-9a-f]:/i.test(text);
}

/** The node interface whose subnet holds `ip` (not the default one), with that subnet. */
function bridgeOf(
  scenario: Scenario,
  layout: ScenarioLayout,
  address: string,
): { readonly name: string; readonly cidr: CIDR } | undefined {
  const a = parseIP(address, "lenient");
  if (a === undefined) return undefined;
  for (const i of scenario.node.interfaces) {
    if (isLoopbackInterface(i.name) || i.name === layout.defaultInterface) continue;
    const cidr = cidrs(i.addresses, a.family).find(
      (c) => c.prefix < (a.family === "IPv4" ? 31 : 127) && cidrContains(c, a),
    );
    if (cidr !== undefined) return { name: i.name, cidr };
  }
  return undefined;
}

/** What the set-up of one scenario writes: the script, and what it added already (per device). */
interface Build {
  readonly scenario: Scenario;
  readonly layout: ScenarioLayout;
  readonly script: IpScript;
  readonly node: Netns;
  /** `dev address/prefix` on the node: a bridge address several IPv6 pods share is added once. */
  readonly nodeAddresses: Set<string>;
}

function attachPod(b: Build, pod: AttachedPod, ns: Netns): void {
  if (pod.interface.length > 15)
    throw new ScenarioError(
      `pod ${pod.name}: interface name ${pod.interface} is longer than 15 characters`,
    );
  b.script.veth(ns, "eth0", b.node, pod.interface);
  b.script.ip(ns, ["link", "set", "eth0", "up"]);
  b.script.ip(b.node, ["link", "set", pod.interface, "up"]);
  for (const address of podAddresses(pod)) {
    if (ipFamilyOf(address) === "IPv6") attachPod6(b, pod, ns, address);
    else attachPod4(b, pod, ns, address);
  }
}

function attachPod4(b: Build, pod: AttachedPod, ns: Netns, address: string): void {
  const bridge = bridgeOf(b.scenario, b.layout, address);
  b.script.ip(ns, ["addr", "add", `${address}/${bridge?.cidr.prefix ?? 32}`, "dev", "eth0"]);
  // Proxy ARP answers after a random delay of up to 0.8 s by default: longer than a probe may
  // wait for a UDP answer. Answer at once.
  b.script.sysctl(b.node, [
    `net.ipv4.conf.${pod.interface}.proxy_arp=1`,
    `net.ipv4.neigh.${pod.interface}.proxy_delay=0`,
  ]);
  if (bridge !== undefined) {
    const gw = formatIP(bridge.cidr.address);
    b.script.ip(b.node, ["addr", "add", `${gw}/32`, "dev", pod.interface]);
    b.script.ip(ns, ["route", "add", DEFAULT_ROUTE.IPv4, "via", gw]);
  } else {
    b.script.ip(ns, [
      "route",
      "add",
      DEFAULT_ROUTE.IPv4,
      "via",
      POD_GATEWAY,
      "dev",
      "eth0",
      "onlink",
    ]);
  }
  b.script.ip(b.node, ["route", "replace", `${address}/32`, "dev", pod.interface]);
}

/**
 * An IPv6 pod address: /128 on eth0, everything routed via the node side of the veth (the
 * bridge address, held there as /128 so that a hairpin MASQUERADE picks it as on the bridge,
 * or fe80::1), so pods reach each other through the node as with proxy ARP in IPv4.
 */
function attachPod6(b: Build, pod: AttachedPod, ns: Netns, address: string): void {
  const bridge = bridgeOf(b.scenario, b.layout, address);
  b.script.ip(ns, addrArgs(address, 128, "eth0"));
  const gw = bridge !== undefined ? formatIP(bridge.cidr.address) : POD_GATEWAY6;
  const onNode = bridge !== undefined ? 128 : 64;
  const key = `${pod.interface} ${gw}/${onNode}`;
  if (!b.nodeAddresses.has(key)) {
    b.nodeAddresses.add(key);
    b.script.ip(b.node, addrArgs(gw, onNode, pod.interface));
  }
  b.script.ip(ns, ["route", "add", DEFAULT_ROUTE.IPv6, "via", gw, "dev", "eth0", "onlink"]);
  b.script.ip(b.node, ["route", "replace", `${address}/128`, "dev", pod.interface]);
}

function buildNode(b: Build, world: Netns): void {
  const { scenario, layout, script, node } = b;
  for (const iface of scenario.node.interfaces) {
    const list = cidrs(iface.addresses).filter((c) => !automatic(c));
    if (isLoopbackInterface(iface.name)) {
      for (const c of list) script.ip(node, addrArgs(formatIP(c.address), c.prefix, "lo"));
      continue;
    }
    if (iface.name.length > 15)
      throw new ScenarioError(`interface name ${iface.name} is longer than 15 characters`);
    if (iface.name === layout.defaultInterface) script.veth(world, "eth0", node, iface.name);
    else script.ip(node, ["link", "add", iface.name, "type", "bridge"]);
    for (const c of list) script.ip(node, addrArgs(formatIP(c.address), c.prefix, iface.name));
    script.ip(node, ["link", "set", iface.name, "up"]);
  }
  script.ip(world, ["link", "set", "eth0", "up"]);
  for (const side of layout.sides) {
    const route = DEFAULT_ROUTE[side.family];
    script.ip(world, addrArgs(side.external, side.lan.prefix, "eth0"));
    script.ip(world, ["route", "add", route, "via", formatIP(side.lan.address)]);
    script.ip(node, ["route", "add", route, "via", side.external, "dev", layout.defaultInterface]);
  }
}

function baseSysctls(script: IpScript, ns: Netns, forward: boolean): void {
  script.ip(ns, ["link", "set", "lo", "up"]);
  const f = forward ? "1" : "0";
  script.sysctl(ns, [
    `net.ipv4.ip_forward=${f}`,
    `net.ipv6.conf.all.forwarding=${f}`,
    ...["all", "default"].flatMap((conf) => [
      `net.ipv4.conf.${conf}.rp_filter=0`,
      // Before any interface exists: link-local addresses skip duplicate address detection too.
      `net.ipv6.conf.${conf}.accept_dad=0`,
    ]),
    // Every ICMP error counts as an answer: none may be rate-limited away.
    "net.ipv4.icmp_ratelimit=0",
    "net.ipv6.icmp.ratelimit=0",
  ]);
}

function buildRemote(
  script: IpScript,
  world: Netns,
  remote: Netns,
  offLan: readonly string[],
): void {
  script.veth(remote, "eth0", world, "remote0");
  script.ip(world, ["addr", "add", `${REMOTE_LINK.world}/${REMOTE_LINK.prefix}`, "dev", "remote0"]);
  script.ip(world, addrArgs(REMOTE_LINK6.world, REMOTE_LINK6.prefix, "remote0"));
  script.ip(world, ["link", "set", "remote0", "up"]);
  script.ip(remote, ["addr", "add", `${REMOTE_LINK.remote}/${REMOTE_LINK.prefix}`, "dev", "eth0"]);
  script.ip(remote, addrArgs(REMOTE_LINK6.remote, REMOTE_LINK6.prefix, "eth0"));
  script.ip(remote, ["link", "set", "eth0", "up"]);
  script.ip(remote, ["route", "add", DEFAULT_ROUTE.IPv4, "via", REMOTE_LINK.world]);
  script.ip(remote, ["route", "add", DEFAULT_ROUTE.IPv6, "via", REMOTE_LINK6.world]);
  for (const a of offLan) script.ip(remote, addrArgs(a, hostPrefix(a), "lo"));
  for (const a of offLan) {
    const link = ipFamilyOf(a) === "IPv6" ? REMOTE_LINK6 : REMOTE_LINK;
    script.ip(world, ["route", "add", `${a}/${hostPrefix(a)}`, "via", link.remote]);
  }
}

/**
 * Builds the topology: its namespaces from one process, then everything inside them from one
 * script (ip-script.ts); on any failure removes what it made and rethrows.
 */
export function buildTopology(scenario: Scenario, layout: ScenarioLayout): ScenarioTopology {
  const offLan = scenario.remoteEndpoints.filter((a) => !onLan(layout, a));
  const onLanRemote = scenario.remoteEndpoints.filter((a) => onLan(layout, a));
  const made = createNetnsGroup([
    "kns-node",
    "kns-world",
    ...(offLan.length > 0 ? ["kns-remote"] : []),
    ...scenario.pods.map(() => "kns-pod"),
  ]);
  try {
    const [node, world] = made as [Netns, Netns];
    const remote = offLan.length > 0 ? made[2] : undefined;
    const podNs = made.slice(offLan.length > 0 ? 3 : 2);
    const pods = new Map<string, Place>();
    scenario.pods.forEach((pod, i) =>
      pods.set(pod.name, {
        role: "pod",
        ns: podNs[i]!,
        addresses: [...podAddresses(pod)],
        listening: new Set(),
      }),
    );
    const script = new IpScript();
    const b: Build = { scenario, layout, script, node, nodeAddresses: new Set() };
    baseSysctls(script, node, true);
    baseSysctls(script, world, remote !== undefined);
    if (remote !== undefined) baseSysctls(script, remote, false);
    for (const p of pods.values()) baseSysctls(script, p.ns, false);
    buildNode(b, world);
    for (const pod of scenario.pods) attachPod(b, pod, pods.get(pod.name)!.ns);
    for (const a of onLanRemote) script.ip(world, addrArgs(a, hostPrefix(a), "eth0"));
    if (remote !== undefined) buildRemote(script, world, remote, offLan);
    script.run();
    return {
      node: {
        role: "node",
        ns: node,
        addresses: [
          ...new Set([
            ...layout.nodeAddresses.filter((a) => !/^fe[89ab][0-9a-f]:/i.test(a)),
            "127.0.0.1",
            ...(layout.sides.some((x) => x.family === "IPv6") ? ["::1"] : []),
          ]),
        ],
        listening: new Set(),
      },
      world: {
        role: "world",
        ns: world,
        addresses: [...layout.sides.map((x) => x.external), ...onLanRemote],
        listening: new Set(),
      },
      ...(remote !== undefined
        ? { remote: { role: "remote", ns: remote, addresses: offLan, listening: new Set() } }
        : {}),
      pods,
      children: [],
    };
  } catch (e) {
    deleteNetnsGroup(made);
    throw e;
  }
}

/** Every place of the topology. */
export function placesOf(t: ScenarioTopology): Place[] {
  return [t.node, t.world, ...(t.remote !== undefined ? [t.remote] : []), ...t.pods.values()];
}

/** Starts servers so that every place listens on `ports` (TCP and UDP) on all its addresses. */
export async function ensureListening(
  t: ScenarioTopology,
  ports: readonly number[],
): Promise<void> {
  await Promise.all(
    placesOf(t).map(async (place) => {
      const missing = [...new Set(ports)].filter((p) => !place.listening.has(p));
      if (missing.length === 0 || place.addresses.length === 0) return;
      const child = await startServer(place.ns, place.role, place.addresses, missing);
      t.children.push(child);
      for (const p of missing) place.listening.add(p);
    }),
  );
}

/** Hosts an outside source address in the world namespace (the node routes it there by default). */
export async function hostOutsideAddress(t: ScenarioTopology, address: string): Promise<void> {
  if (t.world.addresses.includes(address)) return;
  ip(["-n", t.world.ns.name, ...addrArgs(address, hostPrefix(address), "lo")]);
  t.world.addresses.push(address);
  if (t.world.listening.size > 0)
    t.children.push(await startServer(t.world.ns, "world", [address], [...t.world.listening]));
}

export function removeTopology(t: ScenarioTopology): void {
  for (const c of t.children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  deleteNetnsGroup(placesOf(t).map((p) => p.ns));
}
