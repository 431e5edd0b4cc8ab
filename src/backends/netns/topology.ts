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
import { addVeth, createNetns, deleteNetns, type Netns } from "../netns.js";

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

function attachPod(
  scenario: Scenario,
  layout: ScenarioLayout,
  node: Netns,
  pod: AttachedPod,
  ns: Netns,
): void {
  if (pod.interface.length > 15)
    throw new ScenarioError(
      `pod ${pod.name}: interface name ${pod.interface} is longer than 15 characters`,
    );
  addVeth(ns, "eth0", node, pod.interface);
  ip(["-n", ns.name, "link", "set", "eth0", "up"]);
  ip(["-n", node.name, "link", "set", pod.interface, "up"]);
  for (const address of podAddresses(pod)) {
    if (ipFamilyOf(address) === "IPv6") attachPod6(scenario, layout, node, pod, ns, address);
    else attachPod4(scenario, layout, node, pod, ns, address);
  }
}

function attachPod4(
  scenario: Scenario,
  layout: ScenarioLayout,
  node: Netns,
  pod: AttachedPod,
  ns: Netns,
  address: string,
): void {
  const bridge = bridgeOf(scenario, layout, address);
  ip(["-n", ns.name, "addr", "add", `${address}/${bridge?.cidr.prefix ?? 32}`, "dev", "eth0"]);
  // Proxy ARP answers after a random delay of up to 0.8 s by default: longer than a probe may
  // wait for a UDP answer. Answer at once.
  node.exec("sysctl", [
    "-q",
    "-w",
    `net.ipv4.conf.${pod.interface}.proxy_arp=1`,
    `net.ipv4.neigh.${pod.interface}.proxy_delay=0`,
  ]);
  if (bridge !== undefined) {
    const gw = formatIP(bridge.cidr.address);
    ip(["-n", node.name, "addr", "add", `${gw}/32`, "dev", pod.interface]);
    ip(["-n", ns.name, "route", "add", "default", "via", gw]);
  } else {
    ip(["-n", ns.name, "route", "add", "default", "via", POD_GATEWAY, "dev", "eth0", "onlink"]);
  }
  ip(["-n", node.name, "route", "replace", `${address}/32`, "dev", pod.interface]);
}

/**
 * An IPv6 pod address: /128 on eth0, everything routed via the node side of the veth (the
 * bridge address, held there as /128 so that a hairpin MASQUERADE picks it as on the bridge,
 * or fe80::1), so pods reach each other through the node as with proxy ARP in IPv4.
 */
function attachPod6(
  scenario: Scenario,
  layout: ScenarioLayout,
  node: Netns,
  pod: AttachedPod,
  ns: Netns,
  address: string,
): void {
  const bridge = bridgeOf(scenario, layout, address);
  ip(["-n", ns.name, ...addrArgs(address, 128, "eth0")]);
  const gw = bridge !== undefined ? formatIP(bridge.cidr.address) : POD_GATEWAY6;
  const onNode = bridge !== undefined ? 128 : 64;
  const have = spawnSync("ip", ["-n", node.name, "-6", "addr", "show", "dev", pod.interface], {
    encoding: "utf8",
  }).stdout;
  if (!have.includes(`${gw}/${onNode}`))
    ip(["-n", node.name, ...addrArgs(gw, onNode, pod.interface)]);
  ip(["-n", ns.name, "-6", "route", "add", "default", "via", gw, "dev", "eth0", "onlink"]);
  ip(["-n", node.name, "-6", "route", "replace", `${address}/128`, "dev", pod.interface]);
}

function buildNode(scenario: Scenario, layout: ScenarioLayout, node: Netns, world: Netns): void {
  for (const iface of scenario.node.interfaces) {
    const list = cidrs(iface.addresses).filter((c) => !automatic(c));
    if (isLoopbackInterface(iface.name)) {
      for (const c of list) ip(["-n", node.name, ...addrArgs(formatIP(c.address), c.prefix, "lo")]);
      continue;
    }
    if (iface.name.length > 15)
      throw new ScenarioError(`interface name ${iface.name} is longer than 15 characters`);
    if (iface.name === layout.defaultInterface) addVeth(world, "eth0", node, iface.name);
    else ip(["-n", node.name, "link", "add", iface.name, "type", "bridge"]);
    for (const c of list)
      ip(["-n", node.name, ...addrArgs(formatIP(c.address), c.prefix, iface.name)]);
    ip(["-n", node.name, "link", "set", iface.name, "up"]);
  }
  ip(["-n", world.name, "link", "set", "eth0", "up"]);
  for (const side of layout.sides) {
    const f = side.family === "IPv6" ? "-6" : "-4";
    ip(["-n", world.name, ...addrArgs(side.external, side.lan.prefix, "eth0")]);
    ip(["-n", world.name, f, "route", "add", "default", "via", formatIP(side.lan.address)]);
    ip([
      "-n",
      node.name,
      f,
      "route",
      "add",
      "default",
      "via",
      side.external,
      "dev",
      layout.defaultInterface,
    ]);
  }
}

function baseSysctls(ns: Netns, forward: boolean): void {
  ip(["-n", ns.name, "link", "set", "lo", "up"]);
  const f = forward ? "1" : "0";
  // One sysctl run for all of them (each `ip netns exec` costs a process).
  ns.exec("sysctl", [
    "-q",
    "-w",
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

/** Builds the topology; on any failure removes what it made and rethrows. */
export function buildTopology(scenario: Scenario, layout: ScenarioLayout): ScenarioTopology {
  const made: Netns[] = [];
  const make = (prefix: string): Netns => {
    const ns = createNetns(prefix);
    made.push(ns);
    return ns;
  };
  try {
    const node = make("kns-node");
    const world = make("kns-world");
    const offLan = scenario.remoteEndpoints.filter((a) => !onLan(layout, a));
    const onLanRemote = scenario.remoteEndpoints.filter((a) => onLan(layout, a));
    const remote = offLan.length > 0 ? make("kns-remote") : undefined;
    const pods = new Map<string, Place>();
    for (const pod of scenario.pods)
      pods.set(pod.name, {
        role: "pod",
        ns: make("kns-pod"),
        addresses: [...podAddresses(pod)],
        listening: new Set(),
      });
    baseSysctls(node, true);
    baseSysctls(world, remote !== undefined);
    if (remote !== undefined) baseSysctls(remote, false);
    for (const p of pods.values()) baseSysctls(p.ns, false);
    buildNode(scenario, layout, node, world);
    for (const pod of scenario.pods) attachPod(scenario, layout, node, pod, pods.get(pod.name)!.ns);
    for (const a of onLanRemote) ip(["-n", world.name, ...addrArgs(a, hostPrefix(a), "eth0")]);
    if (remote !== undefined) {
      addVeth(remote, "eth0", world, "remote0");
      ip([
        "-n",
        world.name,
        "addr",
        "add",
        `${REMOTE_LINK.world}/${REMOTE_LINK.prefix}`,
        "dev",
        "remote0",
      ]);
      ip([
        "-n",
        remote.name,
        "addr",
        "add",
        `${REMOTE_LINK.remote}/${REMOTE_LINK.prefix}`,
        "dev",
        "eth0",
      ]);
      ip(["-n", world.name, ...addrArgs(REMOTE_LINK6.world, REMOTE_LINK6.prefix, "remote0")]);
      ip(["-n", remote.name, ...addrArgs(REMOTE_LINK6.remote, REMOTE_LINK6.prefix, "eth0")]);
      ip(["-n", world.name, "link", "set", "remote0", "up"]);
      ip(["-n", remote.name, "link", "set", "eth0", "up"]);
      ip(["-n", remote.name, "route", "add", "default", "via", REMOTE_LINK.world]);
      ip(["-n", remote.name, "-6", "route", "add", "default", "via", REMOTE_LINK6.world]);
      for (const a of offLan) {
        const link = ipFamilyOf(a) === "IPv6" ? REMOTE_LINK6 : REMOTE_LINK;
        ip(["-n", remote.name, ...addrArgs(a, hostPrefix(a), "lo")]);
        ip(["-n", world.name, "route", "add", `${a}/${hostPrefix(a)}`, "via", link.remote]);
      }
    }
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
    for (const ns of made) deleteNetns(ns);
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
  for (const p of placesOf(t)) deleteNetns(p.ns);
}
