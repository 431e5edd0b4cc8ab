/**
 * A three-namespace topology for checking the tracer against the real kernel:
 *
 *   client (198.51.100.2/24) --veth-- node (n0 198.51.100.1/24, n1 10.180.0.254/24) --veth-- server
 *                                                                     (10.180.0.1-3/24)
 *
 * The node forwards (ip_forward=1) and has no default route, so a packet to an address that
 * is neither local nor connected gets ICMP net unreachable (ICMP errors are not rate-limited). The server and the node each run
 * a tiny TCP+UDP server on the listed ports of each of their addresses; a probe from the client
 * reports which server (namespace, address, port) answered and the peer it saw. All veth ends
 * are created directly inside the namespaces (no names in the root namespace), and
 * `close()` stops the servers (by the pids this module started) and deletes the namespaces.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createNetns, deleteNetns, type Netns } from "../netns.js";
import { CLIENT_SCRIPT, SERVER_SCRIPT, type Probe, type ProbeResult } from "./probe-scripts.js";

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

export interface TraceTopology {
  readonly client: Netns;
  readonly node: Netns;
  readonly server: Netns;
  /** The node's interfaces, for the tracer's dataplane. */
  readonly nodeInterfaces: readonly {
    readonly name: string;
    readonly addresses: readonly string[];
  }[];
  /** Replaces the node's tables with this iptables-restore input. */
  loadRules(restore: string): void;
  probe(probes: readonly Probe[], timeoutMs: number): Promise<ProbeResult[]>;
  close(): void;
}

function ip(args: readonly string[]): void {
  const r = spawnSyncChecked("ip", args);
  if (r !== undefined) throw new Error(`ip ${args.join(" ")}: ${r}`);
}

function spawnSyncChecked(cmd: string, args: readonly string[]): string | undefined {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return r.status === 0 ? undefined : r.stderr || String(r.error);
}

function startServer(
  ns: Netns,
  label: string,
  addresses: readonly string[],
  ports: readonly number[],
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "ip",
      [
        "netns",
        "exec",
        ns.name,
        process.execPath,
        "-e",
        SERVER_SCRIPT,
        label,
        JSON.stringify(addresses),
        JSON.stringify(ports),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server in ${ns.name} did not start: ${err}`));
    }, 10_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server in ${ns.name} exited (${code}): ${err}`));
    });
  });
}

function runClient(ns: Netns, probes: readonly Probe[], timeoutMs: number): Promise<ProbeResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "ip",
      [
        "netns",
        "exec",
        ns.name,
        process.execPath,
        "-e",
        CLIENT_SCRIPT,
        JSON.stringify(probes),
        String(timeoutMs),
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    const guard = setTimeout(() => child.kill("SIGKILL"), timeoutMs + 10_000);
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => {
      clearTimeout(guard);
      if (code !== 0) reject(new Error(`probe client failed (${code}): ${err}`));
      else resolve(JSON.parse(out) as ProbeResult[]);
    });
  });
}

export async function createTraceTopology(prefix = "kns-tr"): Promise<TraceTopology> {
  const created: Netns[] = [];
  const children: ChildProcess[] = [];
  const close = (): void => {
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    for (const ns of created) deleteNetns(ns);
  };
  try {
    const client = createNetns(`${prefix}c`);
    created.push(client);
    const node = createNetns(`${prefix}n`);
    created.push(node);
    const server = createNetns(`${prefix}s`);
    created.push(server);
    const T = TOPOLOGY;
    ip([
      "-n",
      client.name,
      "link",
      "add",
      "eth0",
      "type",
      "veth",
      "peer",
      "name",
      "n0",
      "netns",
      node.name,
    ]);
    ip([
      "-n",
      server.name,
      "link",
      "add",
      "eth0",
      "type",
      "veth",
      "peer",
      "name",
      "n1",
      "netns",
      node.name,
    ]);
    for (const ns of created) ip(["-n", ns.name, "link", "set", "lo", "up"]);
    ip(["-n", client.name, "addr", "add", `${T.client}/${T.clientPrefix}`, "dev", "eth0"]);
    ip(["-n", client.name, "link", "set", "eth0", "up"]);
    ip(["-n", client.name, "route", "add", "default", "via", T.nodeClientSide]);
    ip(["-n", node.name, "addr", "add", `${T.nodeClientSide}/${T.clientPrefix}`, "dev", "n0"]);
    ip(["-n", node.name, "addr", "add", `${T.nodeServerSide}/${T.serverPrefix}`, "dev", "n1"]);
    ip(["-n", node.name, "link", "set", "n0", "up"]);
    ip(["-n", node.name, "link", "set", "n1", "up"]);
    node.exec("sysctl", ["-q", "-w", "net.ipv4.ip_forward=1"]);
    // ICMP errors (REJECT, port and net unreachable) must not be rate-limited: every probe counts.
    for (const ns of [node, server]) ns.exec("sysctl", ["-q", "-w", "net.ipv4.icmp_ratelimit=0"]);
    for (const a of T.servers)
      ip(["-n", server.name, "addr", "add", `${a}/${T.serverPrefix}`, "dev", "eth0"]);
    ip(["-n", server.name, "link", "set", "eth0", "up"]);
    ip(["-n", server.name, "route", "add", "default", "via", T.nodeServerSide]);
    children.push(await startServer(server, "server", T.servers, T.listenPorts));
    children.push(
      await startServer(node, "node", [T.nodeClientSide, T.nodeServerSide], T.listenPorts),
    );
    return {
      client,
      node,
      server,
      nodeInterfaces: [
        { name: "lo", addresses: ["127.0.0.1/8"] },
        { name: "n0", addresses: [`${T.nodeClientSide}/${T.clientPrefix}`] },
        { name: "n1", addresses: [`${T.nodeServerSide}/${T.serverPrefix}`] },
      ],
      loadRules(restore) {
        node.exec("iptables-restore", [], restore);
      },
      probe: (probes, timeoutMs) => runClient(client, probes, timeoutMs),
      close,
    };
  } catch (e) {
    close();
    throw e;
  }
}
