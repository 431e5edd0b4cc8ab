/**
 * A three-namespace, dual-stack topology for checking the tracer against the real kernel:
 *
 *   client (198.51.100.2/24) --veth-- node (n0 198.51.100.1/24, n1 10.180.0.254/24) --veth-- server
 *                                                                     (10.180.0.1-3/24)
 *   client (2001:db8:51::2/64)        node (n0 2001:db8:51::1/64, n1 2001:db8:180::fe/64)   server
 *                                                                     (2001:db8:180::1-3/64)
 *
 * The node forwards (ip_forward=1, net.ipv6.conf.all.forwarding=1) and has no default route in
 * either family, so a packet to an address that is neither local nor connected gets ICMP net
 * unreachable / ICMPv6 no route (ICMP errors are not rate-limited). IPv6 addresses are added
 * without duplicate address detection, so they are usable at once. The server and the node each
 * run a tiny TCP+UDP server on the listed ports of each of their addresses (both families); a
 * probe from the client reports which server (namespace, address, port) answered and the peer
 * it saw. All veth ends are created directly inside the namespaces (no names in the root
 * namespace), and `close()` stops the servers (by the pids this module started) and deletes the
 * namespaces.
 */
import { execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import type { IPFamily } from "../../net/index.js";
import { IpScript } from "../ip-script.js";
import { createNetnsGroup, deleteNetnsGroup, type Netns } from "../netns.js";
import { CLIENT_SCRIPT, SERVER_SCRIPT, type Probe, type ProbeResult } from "./probe-scripts.js";
import { runJsonClient, startReadyServer } from "./netns-process.js";

export const TOPOLOGY = {
  client: "198.51.100.2",
  clientPrefix: 24,
  nodeClientSide: "198.51.100.1",
  nodeServerSide: "10.180.0.254",
  servers: ["10.180.0.1", "10.180.0.2", "10.180.0.3"],
  serverPrefix: 24,
  /** Ports the servers listen on (TCP and UDP); other ports are closed. */
  listenPorts: [8080],
} as const;

/** The IPv6 addresses of the same topology (documentation prefix 2001:db8::/32). */
export const TOPOLOGY6 = {
  client: "2001:db8:51::2",
  clientPrefix: 64,
  nodeClientSide: "2001:db8:51::1",
  nodeServerSide: "2001:db8:180::fe",
  servers: ["2001:db8:180::1", "2001:db8:180::2", "2001:db8:180::3"],
  serverPrefix: 64,
  listenPorts: TOPOLOGY.listenPorts,
} as const;

export interface FamilyAddresses {
  readonly client: string;
  readonly clientPrefix: number;
  readonly nodeClientSide: string;
  readonly nodeServerSide: string;
  readonly servers: readonly [string, string, string];
  readonly serverPrefix: number;
  readonly listenPorts: readonly number[];
}

export const TOPOLOGY_BY_FAMILY: Readonly<Record<IPFamily, FamilyAddresses>> = {
  IPv4: TOPOLOGY,
  IPv6: TOPOLOGY6,
};

export interface TraceTopology {
  readonly client: Netns;
  readonly node: Netns;
  readonly server: Netns;
  /** The node's interfaces, for the tracer's dataplane. */
  readonly nodeInterfaces: readonly {
    readonly name: string;
    readonly addresses: readonly string[];
  }[];
  /** Replaces the node's tables of that family (default IPv4) with this (ip6)tables-restore input. */
  loadRules(restore: string, family?: IPFamily): void;
  probe(probes: readonly Probe[], timeoutMs: number): Promise<ProbeResult[]>;
  close(): void;
}

// Promisified at the call, not at import: the CLI loads child_process only when a command spawns.
const run = (file: string, args: readonly string[]) => promisify(execFile)(file, args);

/**
 * Waits until IPv6 is up on each device: addrconf adds the link-local address only once the
 * link has carrier (a veth end gets it up to a second after `link set up`); before that the
 * device neither sends nor answers neighbour solicitations, and IPv6 probes would time out.
 * One shell polls them all (every 50 ms, up to 10 s each) instead of one `ip` spawn per look.
 */
async function waitForIPv6(devices: readonly (readonly [Netns, string])[]): Promise<void> {
  const script = devices.map(
    ([ns, dev]) => `i=0
while :; do
  out=$(ip -n '${ns.name}' -6 addr show dev '${dev}' scope link)
  case "$out" in *fe80:*) case "$out" in *tentative*) ;; *) break ;; esac ;; esac
  i=$((i + 1))
  if [ $i -ge 200 ]; then echo 'IPv6 did not come up on ${dev} in ${ns.name}' >&2; exit 1; fi
  sleep 0.05
done`,
  );
  try {
    await run("sh", ["-c", script.join("\n")]);
  } catch (e) {
    throw new Error(((e as { stderr?: string }).stderr ?? String(e)).trim(), { cause: e });
  }
}

/** Starts the probe server (TCP+UDP on each address and port) in `ns`; resolves once it listens. */
export function startServer(
  ns: Netns,
  label: string,
  addresses: readonly string[],
  ports: readonly number[],
): Promise<ChildProcess> {
  const argv = [process.execPath, "-e", SERVER_SCRIPT, label];
  return startReadyServer(
    ns,
    [...argv, JSON.stringify(addresses), JSON.stringify(ports)],
    "server",
  );
}

export function runClient(
  ns: Netns,
  probes: readonly Probe[],
  timeoutMs: number,
): Promise<ProbeResult[]> {
  const argv = [process.execPath, "-e", CLIENT_SCRIPT, JSON.stringify(probes), String(timeoutMs)];
  return runJsonClient(ns, argv, timeoutMs, "probe client");
}

export async function createTraceTopology(prefix = "kns-tr"): Promise<TraceTopology> {
  const created: Netns[] = [];
  const children: ChildProcess[] = [];
  const close = (): void => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    deleteNetnsGroup(created);
  };
  try {
    const [client, node, server] = createNetnsGroup([`${prefix}c`, `${prefix}n`, `${prefix}s`]) as [
      Netns,
      Netns,
      Netns,
    ];
    created.push(client, node, server);
    // The set-up from one script (ip-script.ts): each spawn from a jest worker costs tens of ms.
    const setup = new IpScript();
    // Before any interface exists, so that link-local addresses skip DAD too.
    for (const ns of created)
      setup.sysctl(ns, ["net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]);
    setup.veth(client, "eth0", node, "n0");
    setup.veth(server, "eth0", node, "n1");
    for (const ns of created) setup.ip(ns, ["link", "set", "lo", "up"]);
    const both = [TOPOLOGY, TOPOLOGY6] as const;
    for (const T of both) {
      // nodad: an IPv6 address is usable at once (no tentative period).
      const nodad = T === TOPOLOGY6 ? ["nodad"] : [];
      const addr = (ns: Netns, a: string, prefix: number, dev: string): void =>
        void setup.ip(ns, ["addr", "add", `${a}/${prefix}`, "dev", dev, ...nodad]);
      addr(client, T.client, T.clientPrefix, "eth0");
      addr(node, T.nodeClientSide, T.clientPrefix, "n0");
      addr(node, T.nodeServerSide, T.serverPrefix, "n1");
      for (const a of T.servers) addr(server, a, T.serverPrefix, "eth0");
    }
    const devices = [
      [client, "eth0"],
      [node, "n0"],
      [node, "n1"],
      [server, "eth0"],
    ] as const;
    for (const [ns, dev] of devices) setup.ip(ns, ["link", "set", dev, "up"]);
    setup.run();
    await waitForIPv6(devices);
    const routes = new IpScript();
    for (const T of both) {
      // The default route written out: `ip -batch` lines take no -4/-6.
      const dflt = T === TOPOLOGY6 ? "::/0" : "0.0.0.0/0";
      routes.ip(client, ["route", "add", dflt, "via", T.nodeClientSide]);
      routes.ip(server, ["route", "add", dflt, "via", T.nodeServerSide]);
    }
    routes.sysctl(node, ["net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"]);
    // ICMP errors (REJECT, port and net unreachable) must not be rate-limited: every probe counts.
    for (const ns of [node, server])
      routes.sysctl(ns, ["net.ipv4.icmp_ratelimit=0", "net.ipv6.icmp.ratelimit=0"]);
    routes.run();
    children.push(
      await startServer(
        server,
        "server",
        both.flatMap((T) => T.servers),
        TOPOLOGY.listenPorts,
      ),
    );
    children.push(
      await startServer(
        node,
        "node",
        both.flatMap((T) => [T.nodeClientSide, T.nodeServerSide]),
        TOPOLOGY.listenPorts,
      ),
    );
    return {
      client,
      node,
      server,
      // Without the fe80:: link-local addresses: no probe uses them.
      nodeInterfaces: [
        { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
        {
          name: "n0",
          addresses: both.map((T) => `${T.nodeClientSide}/${T.clientPrefix}`),
        },
        {
          name: "n1",
          addresses: both.map((T) => `${T.nodeServerSide}/${T.serverPrefix}`),
        },
      ],
      loadRules(restore, family = "IPv4") {
        node.exec(family === "IPv4" ? "iptables-restore" : "ip6tables-restore", [], restore);
      },
      probe: (probes, timeoutMs) => runClient(client, probes, timeoutMs),
      close,
    };
  } catch (e) {
    close();
    throw e;
  }
}
