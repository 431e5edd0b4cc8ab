/**
 * The netns backend: a scenario on this machine's kernel, in namespaces this process creates
 * (topology.ts), with the rules loaded by iptables-restore (the nft or legacy variant, as
 * chosen), the ipsets by `ipset restore`, an nftables rule set by `nft -f`, and real TCP, UDP
 * and SCTP connections as probes, each bounded in time and run concurrently per source namespace
 * (SCTP through a Python client, linux/sctp.ts: Node.js has no SCTP sockets), in both address
 * families. Capabilities are detected, never assumed: a scenario with IPVS on a kernel without it
 * and an SCTP probe where no SCTP socket opens are skipped with the reason.
 * Everything is removed by `close`, and also on exceptions, exit and SIGINT/SIGTERM (netns.ts).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import {
  BackendError,
  type Backend,
  type Capability,
  type Observation,
  type Probe,
  type RunningScenario,
  type Scenario,
} from "../backend.js";
import { layoutOf, resolveSource, type ScenarioLayout } from "../layout.js";
import { runClient } from "../linux/topology.js";
import { detectSctpSockets, runSctpClient } from "../linux/sctp.js";
import { ensureSctpListening } from "./sctp-listening.js";
import type { Probe as WireProbe, ProbeResult } from "../linux/probe-scripts.js";
import { ipFamilyOf } from "../../net/index.js";
import {
  buildTopology,
  ensureListening,
  hostOutsideAddress,
  removeTopology,
  type Place,
  type ScenarioTopology,
} from "./topology.js";

export type IptablesVariant = "default" | "nft" | "legacy";

export interface NetnsBackendOptions {
  /** Which iptables-restore loads the rules: `iptables-restore`, `iptables-nft-restore` or `iptables-legacy-restore`. */
  readonly iptables?: IptablesVariant;
  /** How long one probe waits for an answer before it counts as dropped (default 1000 ms). */
  readonly timeoutMs?: number;
}

export const NO_IPVS = "no IPVS in this kernel (/proc/net/ip_vs missing)";
export { NO_SCTP, NO_PYTHON } from "../linux/sctp.js";

function hasCommand(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).status === 0;
}

function restoreCommand(variant: IptablesVariant, family: "IPv4" | "IPv6"): string {
  const base = family === "IPv4" ? "iptables" : "ip6tables";
  return variant === "default" ? `${base}-restore` : `${base}-${variant}-restore`;
}

/**
 * What this machine can do for the netns backend, each with a reason when it cannot. SCTP is
 * tried only when `sctp` is true: opening an SCTP socket loads sctp.ko where it is loadable,
 * which a run without SCTP probes must not do (the SCTP test plan checks that node components
 * leave it unloaded).
 */
function machineCapabilities(variant: IptablesVariant, sctp: boolean): Capability[] {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const ip = hasCommand("ip");
  const setup = !root ? "not running as root" : !ip ? "`ip` (iproute2) not installed" : undefined;
  const tool = (name: Capability["name"], cmd: string): Capability => {
    const reason = setup ?? (hasCommand(cmd) ? undefined : `${cmd} not installed`);
    return reason === undefined ? { name, available: true } : { name, available: false, reason };
  };
  return [
    tool("iptables", restoreCommand(variant, "IPv4")),
    tool("ip6tables", restoreCommand(variant, "IPv6")),
    tool("ipset", "ipset"),
    tool("nftables", "nft"),
    existsSync("/proc/net/ip_vs")
      ? {
          name: "ipvs",
          available: setup === undefined,
          ...(setup !== undefined ? { reason: setup } : {}),
        }
      : { name: "ipvs", available: false, reason: NO_IPVS },
    {
      name: "tcpSockets",
      available: setup === undefined,
      ...(setup !== undefined ? { reason: setup } : {}),
    },
    {
      name: "udpSockets",
      available: setup === undefined,
      ...(setup !== undefined ? { reason: setup } : {}),
    },
    ...(sctp
      ? [
          setup !== undefined
            ? { name: "sctpSockets" as const, available: false, reason: setup }
            : detectSctpSockets(),
        ]
      : []),
  ];
}

/** What this machine can do for the netns backend, each with a reason when it cannot. */
export function detectCapabilities(variant: IptablesVariant = "default"): Capability[] {
  return machineCapabilities(variant, true);
}

interface Opened {
  readonly layout: ScenarioLayout;
  readonly topology?: ScenarioTopology;
  /** Set when the scenario cannot run here: every probe is skipped with it. */
  readonly skip?: string;
  nextPort: number;
}

function observationOf(r: ProbeResult): Observation {
  switch (r.kind) {
    case "reached": {
      const colon = r.reply.remote.lastIndexOf(":");
      const seen = r.reply.remote.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
      // An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d.
      return { kind: "delivered", to: r.reply.local, seenSource: seen.replace(/^::ffff:/, "") };
    }
    case "refused":
    case "unreachable":
      return { kind: "rejected" };
    case "timeout":
      return { kind: "dropped" };
    case "error":
      throw new Error(`probe client error ${r.code}`);
  }
}

/** `nft -f -` of the scenario's nftables rule set in the node's namespace. */
function loadNftables(text: string, t: ScenarioTopology, caps: readonly Capability[]): void {
  const cap = caps.find((c) => c.name === "nftables");
  if (cap?.available !== true)
    throw new BackendError(`cannot load the nftables rule set: ${cap?.reason ?? "unknown"}`);
  const out = t.node.ns.run("nft", ["-f", "-"], text);
  if (out.status !== 0)
    throw new BackendError(
      `nft -f refused the nftables rule set: ${(out.stderr || String(out.error)).trim()}`,
    );
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The scenario's sysctls in the node's namespace, each by its own `sysctl -w` as before but from
 * one shell (one spawn). conntrack's sysctls exist only once nf_conntrack is loaded (by rules
 * that use it): those may fail; any other failure is an error naming the setting.
 */
function setSysctls(t: ScenarioTopology, sysctls: Readonly<Record<string, string>>): void {
  const entries = Object.entries(sysctls);
  if (entries.length === 0) return;
  const script = entries.map(
    ([key, value], i) =>
      `if ! err=$(sysctl -q -w ${quote(`${key}=${value}`)} 2>&1); then printf '%s\\t%s\\n' ${i} "$err"; fi`,
  );
  const out = t.node.ns.run("sh", ["-c", script.join("\n")]);
  if (out.status !== 0) throw new BackendError(`sysctl in ${t.node.ns.name}: ${out.stderr}`);
  for (const line of out.stdout.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab < 0) continue;
    const [key, value] = entries[Number(line.slice(0, tab))]!;
    if (!key.startsWith("net.netfilter."))
      throw new BackendError(`sysctl ${key}=${value}: ${line.slice(tab + 1)}`);
  }
}

/**
 * The least a TCP probe over IPv6 waits. An ICMPv6 error (a REJECT's port unreachable) that
 * comes back while connect() still holds the client's socket is kept as a soft error (the
 * kernel counts it in TcpExtLockDroppedIcmps): the client learns of it only when the SYN is
 * retransmitted, 1 s later (the initial RTO), and the error comes again. On veths the error
 * comes back that fast nearly every time for IPv6, so a shorter wait would call a rejection a
 * drop. The same wait as the IPv6 oracle's (test/backends/linux/trace-oracle.ts).
 */
const IPV6_TCP_TIMEOUT_MS = 1_600;

export function netnsBackend(opts: NetnsBackendOptions = {}): Backend {
  const variant = opts.iptables ?? "default";
  const timeoutMs = opts.timeoutMs ?? 1000;
  const opened = new Map<string, Opened>();

  const load = (scenario: Scenario, t: ScenarioTopology, caps: readonly Capability[]): void => {
    // Rules that count into nfacct objects (kube-proxy's INVALID-drop and localhost NodePort
    // counters) load only where those objects exist.
    for (const name of scenario.node.kernel.nfacct) {
      if (!hasCommand("nfacct"))
        throw new BackendError(
          `the node environment lists nfacct object ${name}: creating it needs the nfacct tool (apt-get install nfacct)`,
        );
      t.node.ns.exec("nfacct", ["add", name]);
    }
    if (scenario.ipsets !== undefined && scenario.ipsets.trim() !== "")
      t.node.ns.exec("ipset", ["restore"], scenario.ipsets);
    // Only reached where the kernel has IPVS (open() skips the scenario otherwise).
    if (scenario.ipvs !== undefined && scenario.ipvs.trim() !== "") {
      if (!hasCommand("ipvsadm-restore"))
        throw new BackendError(
          "the scenario has an IPVS table: loading it needs ipvsadm-restore (apt-get install ipvsadm)",
        );
      t.node.ns.exec("ipvsadm-restore", [], scenario.ipvs);
    }
    for (const r of scenario.rules) {
      const cap = caps.find((c) => c.name === (r.family === "IPv4" ? "iptables" : "ip6tables"));
      if (cap?.available !== true)
        throw new BackendError(`cannot load ${r.family} rules: ${cap?.reason ?? "unknown"}`);
      const out = t.node.ns.run(restoreCommand(variant, r.family), ["-w"], r.text);
      if (out.status !== 0)
        throw new BackendError(
          `${restoreCommand(variant, r.family)} refused the ${r.family} rules: ${(out.stderr || String(out.error)).trim()}`,
        );
    }
    if (scenario.nftables !== undefined && scenario.nftables.trim() !== "")
      loadNftables(scenario.nftables, t, caps);
    setSysctls(t, scenario.sysctls ?? {});
  };

  const placeOf = async (
    o: Opened,
    t: ScenarioTopology,
    scenario: Scenario,
    probe: Probe,
  ): Promise<[Place, string]> => {
    const source = resolveSource(scenario, o.layout, probe);
    switch (source.where) {
      case "pod":
        return [t.pods.get(source.pod ?? "")!, source.ip];
      case "node":
        return [t.node, source.ip];
      case "external":
        await hostOutsideAddress(t, source.ip);
        return [t.world, source.ip];
    }
  };

  const probeAll = async (
    running: RunningScenario,
    probes: readonly Probe[],
    finished?: (count: number) => void,
  ): Promise<Observation[]> => {
    const o = opened.get(running.id);
    if (o === undefined) throw new Error(`scenario ${running.id} is not open in the netns backend`);
    // Tried only when an SCTP probe needs it (see machineCapabilities).
    const sctp: Capability = probes.some((p) => p.protocol === "sctp")
      ? detectSctpSockets()
      : { name: "sctpSockets", available: false };
    const out: (Observation | undefined)[] = probes.map((p) => {
      if (o.skip !== undefined) return { kind: "skipped", reason: o.skip };
      if (p.protocol === "sctp" && !sctp.available)
        return { kind: "skipped", reason: sctp.reason ?? "no SCTP sockets" };
      return undefined;
    });
    const t = o.topology;
    if (t === undefined)
      return out.map((x) => x ?? { kind: "skipped", reason: o.skip ?? "not open" });
    // One client per source namespace and transport: Node.js for TCP/UDP, Python for SCTP.
    const groups = new Map<Place, { index: number; wire: WireProbe }[]>();
    const sctpGroups = new Map<Place, { index: number; wire: WireProbe }[]>();
    for (const [i, p] of probes.entries()) {
      if (out[i] !== undefined) continue;
      const [place, src] = await placeOf(o, t, running.scenario, p);
      const sport = p.sourcePort ?? o.nextPort++;
      const byTransport = p.protocol === "sctp" ? sctpGroups : groups;
      const list = byTransport.get(place) ?? [];
      list.push({
        index: i,
        wire: {
          proto: p.protocol,
          src,
          sport,
          dst: p.to,
          dport: p.port,
          retry: true,
          ...(p.protocol === "tcp" && ipFamilyOf(p.to) === "IPv6"
            ? { timeoutMs: Math.max(timeoutMs, IPV6_TCP_TIMEOUT_MS) }
            : {}),
        },
      });
      byTransport.set(place, list);
    }
    // Nothing to run (every probe skipped, say for SCTP): no servers to start.
    if (groups.size === 0 && sctpGroups.size === 0) return out.map((x) => x ?? { kind: "dropped" });
    const ports = [...running.scenario.ports, ...probes.map((p) => p.port)];
    await ensureListening(t, ports);
    if (sctpGroups.size > 0) await ensureSctpListening(t, ports);
    const batches = [
      ...[...groups].map(([place, list]) => ({ place, list, run: runClient })),
      ...[...sctpGroups].map(([place, list]) => ({ place, list, run: runSctpClient })),
    ];
    await Promise.all(
      batches.map(async ({ place, list, run }) => {
        const results = await run(
          place.ns,
          list.map((x) => x.wire),
          timeoutMs,
        );
        list.forEach((x, k) => (out[x.index] = observationOf(results[k]!)));
        finished?.(list.length);
      }),
    );
    return out.map((x) => x ?? { kind: "dropped" });
  };

  return {
    name: "netns",
    capabilities: () => Promise.resolve(detectCapabilities(variant)),
    open(scenario: Scenario): Promise<RunningScenario> {
      const caps = machineCapabilities(variant, false);
      const needed = caps.find((c) => c.name === "tcpSockets");
      if (needed?.available !== true)
        throw new BackendError(`the netns backend cannot run here: ${needed?.reason}`);
      const running: RunningScenario = {
        backend: "netns",
        id: `netns-${randomBytes(4).toString("hex")}`,
        scenario,
      };
      const layout = layoutOf(scenario);
      const ipvs = caps.find((c) => c.name === "ipvs");
      if (scenario.ipvs !== undefined && scenario.ipvs.trim() !== "" && ipvs?.available !== true) {
        opened.set(running.id, { layout, skip: ipvs?.reason ?? NO_IPVS, nextPort: 40000 });
        return Promise.resolve(running);
      }
      const topology = buildTopology(scenario, layout);
      try {
        load(scenario, topology, caps);
      } catch (e) {
        removeTopology(topology);
        throw e;
      }
      opened.set(running.id, { layout, topology, nextPort: 40000 });
      return Promise.resolve(running);
    },
    async probe(running: RunningScenario, probe: Probe): Promise<Observation> {
      return (await probeAll(running, [probe]))[0]!;
    },
    probeAll,
    close(running: RunningScenario): Promise<void> {
      const o = opened.get(running.id);
      opened.delete(running.id);
      if (o?.topology !== undefined) removeTopology(o.topology);
      return Promise.resolve();
    },
  };
}
