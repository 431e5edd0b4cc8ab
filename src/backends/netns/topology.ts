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
 * Only IPv4 is built. Every namespace runs a probe server on each of its addresses.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { cidrContains, formatIP, parseCIDROrHost, parseIP, type CIDR } from "../../net/index.js";
import { isLoopbackInterface } from "../../netfilter/trace/dataplane.js";
import type { AttachedPod, Scenario } from "../backend.js";
import type { ScenarioLayout } from "../layout.js";
import { onLan, ScenarioError } from "../layout.js";
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
const REMOTE_LINK = { world: "169.254.253.1", remote: "169.254.253.2", prefix: 30 };

function ip(args: readonly string[]): void {
  const r = spawnSync("ip", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr || String(r.error)}`);
}

function sysctl(ns: Netns, key: string, value: string): void {
  ns.exec("sysctl", ["-q", "-w", `${key}=${value}`]);
}

function v4(addresses: readonly string[]): CIDR[] {
  return addresses
    .map((a) => parseCIDROrHost(a))
    .filter((c): c is CIDR => c !== undefined && c.family === "IPv4");
}

/** The node interface whose IPv4 subnet holds `ip` (not the default one), with that subnet. */
function bridgeOf(
  scenario: Scenario,
  layout: ScenarioLayout,
  address: string,
): { readonly name: string; readonly cidr: CIDR } | undefined {
  const a = parseIP(address, "lenient");
  if (a === undefined) return undefined;
  for (const i of scenario.node.interfaces) {
    if (isLoopbackInterface(i.name) || i.name === layout.defaultInterface) continue;
    const cidr = v4(i.addresses).find((c) => c.prefix < 31 && cidrContains(c, a));
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
  const bridge = bridgeOf(scenario, layout, pod.ip);
  ip(["-n", ns.name, "addr", "add", `${pod.ip}/${bridge?.cidr.prefix ?? 32}`, "dev", "eth0"]);
  ip(["-n", ns.name, "link", "set", "eth0", "up"]);
  ip(["-n", node.name, "link", "set", pod.interface, "up"]);
  sysctl(node, `net.ipv4.conf.${pod.interface}.proxy_arp`, "1");
  // Proxy ARP answers after a random delay of up to 0.8 s by default: longer than a probe may
  // wait for a UDP answer. Answer at once.
  sysctl(node, `net.ipv4.neigh.${pod.interface}.proxy_delay`, "0");
  if (bridge !== undefined) {
    const gw = formatIP(bridge.cidr.address);
    ip(["-n", node.name, "addr", "add", `${gw}/32`, "dev", pod.interface]);
    ip(["-n", ns.name, "route", "add", "default", "via", gw]);
  } else {
    ip(["-n", ns.name, "route", "add", "default", "via", POD_GATEWAY, "dev", "eth0", "onlink"]);
  }
  ip(["-n", node.name, "route", "replace", `${pod.ip}/32`, "dev", pod.interface]);
}

function buildNode(scenario: Scenario, layout: ScenarioLayout, node: Netns, world: Netns): void {
  for (const iface of scenario.node.interfaces) {
    const cidrs = v4(iface.addresses);
    if (isLoopbackInterface(iface.name)) {
      for (const c of cidrs)
        if (!formatIP(c.address).startsWith("127."))
          ip(["-n", node.name, "addr", "add", `${formatIP(c.address)}/${c.prefix}`, "dev", "lo"]);
      continue;
    }
    if (iface.name.length > 15)
      throw new ScenarioError(`interface name ${iface.name} is longer than 15 characters`);
    if (iface.name === layout.defaultInterface) addVeth(world, "eth0", node, iface.name);
    else ip(["-n", node.name, "link", "add", iface.name, "type", "bridge"]);
    for (const c of cidrs)
      ip(["-n", node.name, "addr", "add", `${formatIP(c.address)}/${c.prefix}`, "dev", iface.name]);
    ip(["-n", node.name, "link", "set", iface.name, "up"]);
  }
  ip(["-n", world.name, "addr", "add", `${layout.external}/${layout.lan.prefix}`, "dev", "eth0"]);
  ip(["-n", world.name, "link", "set", "eth0", "up"]);
  ip(["-n", world.name, "route", "add", "default", "via", formatIP(layout.lan.address)]);
  ip([
    "-n",
    node.name,
    "route",
    "add",
    "default",
    "via",
    layout.external,
    "dev",
    layout.defaultInterface,
  ]);
}

function baseSysctls(ns: Netns, forward: boolean): void {
  ip(["-n", ns.name, "link", "set", "lo", "up"]);
  sysctl(ns, "net.ipv4.ip_forward", forward ? "1" : "0");
  for (const conf of ["all", "default"]) sysctl(ns, `net.ipv4.conf.${conf}.rp_filter`, "0");
  // Every ICMP error counts as an answer: none may be rate-limited away.
  sysctl(ns, "net.ipv4.icmp_ratelimit", "0");
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
        addresses: [pod.ip],
        listening: new Set(),
      });
    baseSysctls(node, true);
    baseSysctls(world, remote !== undefined);
    if (remote !== undefined) baseSysctls(remote, false);
    for (const p of pods.values()) baseSysctls(p.ns, false);
    buildNode(scenario, layout, node, world);
    for (const pod of scenario.pods) attachPod(scenario, layout, node, pod, pods.get(pod.name)!.ns);
    for (const a of onLanRemote) ip(["-n", world.name, "addr", "add", `${a}/32`, "dev", "eth0"]);
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
      ip(["-n", world.name, "link", "set", "remote0", "up"]);
      ip(["-n", remote.name, "link", "set", "eth0", "up"]);
      ip(["-n", remote.name, "route", "add", "default", "via", REMOTE_LINK.world]);
      for (const a of offLan) {
        ip(["-n", remote.name, "addr", "add", `${a}/32`, "dev", "lo"]);
        ip(["-n", world.name, "route", "add", `${a}/32`, "via", REMOTE_LINK.remote]);
      }
    }
    return {
      node: {
        role: "node",
        ns: node,
        addresses: [...new Set([...layout.nodeAddresses, "127.0.0.1"])],
        listening: new Set(),
      },
      world: {
        role: "world",
        ns: world,
        addresses: [layout.external, ...onLanRemote],
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
  ip(["-n", t.world.ns.name, "addr", "add", `${address}/32`, "dev", "lo"]);
  t.world.addresses.push(address);
  if (t.world.listening.size > 0)
    t.children.push(await startServer(t.world.ns, "world", [address], [...t.world.listening]));
}

export function removeTopology(t: ScenarioTopology): void {
  for (const c of t.children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const p of placesOf(t)) deleteNetns(p.ns);
}
