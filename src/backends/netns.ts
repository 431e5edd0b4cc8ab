/**
 * Scratch network namespaces for real-kernel checks. Only namespaces this module created are
 * ever touched, and each is deleted when its scope ends: on success, failure, exception, process
 * exit and SIGINT/SIGTERM/SIGHUP (after which the signal is raised again), with the probe
 * servers started in them. Names carry the owner's pid, so a later run removes what a killed
 * one (SIGKILL) left behind.
 *
 * Capabilities are detected, never assumed: root, `ip`, `iptables-restore`/`iptables-save`
 * (and the ip6 variants), `ipset`, IPVS (/proc/net/ip_vs after `ip netns` creation) and SCTP
 * sockets (/proc/net/sctp or a loadable module). A test that cannot run says why.
 */
import {
  execFileSync,
  spawnSync,
  type ChildProcess,
  type SpawnSyncReturns,
} from "node:child_process";
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";

export interface KernelCapabilities {
  readonly root: boolean;
  readonly ip: boolean;
  readonly iptables: boolean;
  readonly ip6tables: boolean;
  readonly ipset: boolean;
  readonly ipvs: boolean;
  readonly sctp: boolean;
}

function hasCommand(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).status === 0;
}

let cached: KernelCapabilities | undefined;

export function detectKernelCapabilities(): KernelCapabilities {
  if (cached !== undefined) return cached;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const ip = hasCommand("ip");
  cached = {
    root,
    ip,
    iptables: hasCommand("iptables-restore") && hasCommand("iptables-save"),
    ip6tables: hasCommand("ip6tables-restore") && hasCommand("ip6tables-save"),
    ipset: hasCommand("ipset"),
    ipvs: existsSync("/proc/net/ip_vs"),
    sctp: existsSync("/proc/net/sctp"),
  };
  return cached;
}

/** Why kernel tests that need `needs` cannot run here, or undefined when they can. */
export function kernelSkipReason(
  needs: readonly (keyof KernelCapabilities)[] = ["root", "ip", "iptables"],
): string | undefined {
  const caps = detectKernelCapabilities();
  const missing = needs.filter((n) => !caps[n]);
  if (missing.length === 0) return undefined;
  const words: Record<keyof KernelCapabilities, string> = {
    root: "not running as root",
    ip: "`ip` (iproute2) not installed",
    iptables: "iptables-restore/iptables-save not installed",
    ip6tables: "ip6tables-restore/ip6tables-save not installed",
    ipset: "ipset not installed",
    ipvs: "this kernel has no IPVS (/proc/net/ip_vs missing)",
    sctp: "this kernel has no SCTP sockets (/proc/net/sctp missing)",
  };
  return missing.map((m) => words[m]).join("; ");
}

const created = new Set<string>();
const children = new Set<ChildProcess>();
let hooksInstalled = false;

/** Every name this module gives starts with this, then `-<owner pid>-<6 hex>` ends it. */
export const NETNS_PREFIX = "kns";
const OWNED = /^kns[a-z0-9-]*?-([0-9]+)-[0-9a-f]{6}$/;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Kills every process inside the namespace (by `ip netns pids`), then deletes it. */
function removeNamespace(name: string): void {
  const pids = spawnSync("ip", ["netns", "pids", name], { encoding: "utf8" });
  for (const pid of (pids.stdout ?? "").split(/\s+/).filter((p) => /^[0-9]+$/.test(p))) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // already gone
    }
  }
  spawnSync("ip", ["netns", "del", name]);
}

/** Removes what this process made: child processes first, then its namespaces. */
export function cleanupNow(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  children.clear();
  deleteNetnsGroup([...created].map(handle));
}

/**
 * Namespaces named by this module whose owner process is dead (an earlier run killed with
 * SIGKILL, or a crash): removed, with any process still inside. Returns their names.
 */
export function removeStaleNamespaces(): string[] {
  const list = spawnSync("ip", ["netns", "list"], { encoding: "utf8" });
  const removed: string[] = [];
  for (const line of (list.stdout ?? "").split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const m = OWNED.exec(name);
    if (m === null) continue;
    const owner = Number(m[1]);
    if (owner === process.pid || pidAlive(owner)) continue;
    removeNamespace(name);
    removed.push(name);
  }
  return removed;
}

const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

function onSignal(signal: NodeJS.Signals): void {
  cleanupNow();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  hooksInstalled = false;
  // Re-raise: with our handler gone the default action (or the next handler) runs.
  process.kill(process.pid, signal);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", cleanupNow);
  for (const s of SIGNALS) process.on(s, onSignal);
  removeStaleNamespaces();
}

/** Registers a child process (a probe server) to be killed on cleanup and on signals. */
export function trackChild(child: ChildProcess): void {
  installHooks();
  children.add(child);
  child.once("exit", () => children.delete(child));
}

export interface Netns {
  readonly name: string;
  /** Runs a command inside the namespace; throws with stderr on a non-zero exit. */
  exec(cmd: string, args: readonly string[], input?: string): string;
  /** Runs a command inside the namespace and returns the raw result (no throw). */
  run(cmd: string, args: readonly string[], input?: string): SpawnSyncReturns<string>;
}

function ownName(prefix: string): string {
  if (!prefix.startsWith(NETNS_PREFIX))
    throw new Error(`namespace prefix ${prefix} must start with ${NETNS_PREFIX}`);
  return `${prefix}-${process.pid}-${randomBytes(3).toString("hex")}`;
}

function handle(name: string): Netns {
  const run = (cmd: string, args: readonly string[], input?: string): SpawnSyncReturns<string> =>
    spawnSync("ip", ["netns", "exec", name, cmd, ...args], {
      encoding: "utf8",
      input: input ?? "",
      maxBuffer: 1 << 30,
    });
  return {
    name,
    run,
    exec(cmd, args, input) {
      const r = run(cmd, args, input);
      if (r.status !== 0) {
        throw new Error(
          `${cmd} ${args.join(" ")} failed in ${name}: ${r.stderr || r.error?.message}`,
        );
      }
      return r.stdout;
    },
  };
}

export function createNetns(prefix = NETNS_PREFIX): Netns {
  const name = ownName(prefix);
  installHooks();
  execFileSync("ip", ["netns", "add", name]);
  created.add(name);
  return handle(name);
}

/**
 * One namespace per prefix, created by one `ip -batch` process (each spawn from a big Node.js
 * process costs tens of ms of CPU). The names are registered before they are made, so whatever
 * part a failure left is deleted with the rest.
 */
export function createNetnsGroup(prefixes: readonly string[]): Netns[] {
  const names = prefixes.map(ownName);
  if (names.length === 0) return [];
  installHooks();
  for (const name of names) created.add(name);
  const r = spawnSync("ip", ["-batch", "-"], {
    encoding: "utf8",
    input: names.map((n) => `netns add ${n}\n`).join(""),
  });
  if (r.status !== 0) {
    deleteNetnsGroup(names.map(handle));
    throw new Error(`ip netns add failed: ${(r.stderr || String(r.error)).trim()}`);
  }
  return names.map(handle);
}

export function deleteNetns(ns: Netns): void {
  if (!created.has(ns.name)) return;
  removeNamespace(ns.name);
  created.delete(ns.name);
}

/**
 * deleteNetns of each, from one shell: every process inside a namespace is killed (by `ip netns
 * pids`), then the namespace deleted; one that is already gone is passed over.
 */
export function deleteNetnsGroup(list: readonly Netns[]): void {
  const names = list.map((ns) => ns.name).filter((n) => created.has(n));
  if (names.length === 0) return;
  const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
  const script = names
    .map(quote)
    .map((n) => `ip netns pids ${n} 2>/dev/null | xargs -r kill -9 2>/dev/null; ip netns del ${n}`)
    .join("\n");
  spawnSync("sh", ["-c", script], { encoding: "utf8" });
  for (const n of names) created.delete(n);
}

/** Creates namespaces, runs `body`, and deletes them whatever happens. */
export async function withNetns<T>(
  count: number,
  body: (namespaces: readonly Netns[]) => Promise<T> | T,
  prefix = "kns",
): Promise<T> {
  // Made and removed from one process each (createNetnsGroup, deleteNetnsGroup).
  const list = createNetnsGroup(Array.from({ length: count }, () => prefix));
  try {
    return await body(list);
  } finally {
    deleteNetnsGroup(list);
  }
}

/** Namespaces this process created and has not yet deleted (for leak checks in tests). */
export function liveNetns(): readonly string[] {
  return [...created];
}
