/**
 * Scratch network namespaces for real-kernel checks. Only namespaces this module created are
 * ever touched, and each is deleted when its scope ends, even on failure, and on process exit.
 *
 * Capabilities are detected, never assumed: root, `ip`, `iptables-restore`/`iptables-save`
 * (and the ip6 variants), `ipset`, IPVS (/proc/net/ip_vs after `ip netns` creation) and SCTP
 * sockets (/proc/net/sctp or a loadable module). A test that cannot run says why.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
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
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const name of created) spawnSync("ip", ["netns", "del", name]);
  });
}

export interface Netns {
  readonly name: string;
  /** Runs a command inside the namespace; throws with stderr on a non-zero exit. */
  exec(cmd: string, args: readonly string[], input?: string): string;
  /** Runs a command inside the namespace and returns the raw result (no throw). */
  run(cmd: string, args: readonly string[], input?: string): SpawnSyncReturns<string>;
}

export function createNetns(prefix = "kns"): Netns {
  installExitHook();
  const name = `${prefix}-${process.pid}-${randomBytes(3).toString("hex")}`;
  execFileSync("ip", ["netns", "add", name]);
  created.add(name);
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

export function deleteNetns(ns: Netns): void {
  if (!created.has(ns.name)) return;
  spawnSync("ip", ["netns", "del", ns.name]);
  created.delete(ns.name);
}

/** Creates namespaces, runs `body`, and deletes them whatever happens. */
export async function withNetns<T>(
  count: number,
  body: (namespaces: readonly Netns[]) => Promise<T> | T,
  prefix = "kns",
): Promise<T> {
  const list: Netns[] = [];
  try {
    for (let i = 0; i < count; i++) list.push(createNetns(prefix));
    return await body(list);
  } finally {
    for (const ns of list) deleteNetns(ns);
  }
}

/** Namespaces this process created and has not yet deleted (for leak checks in tests). */
export function liveNetns(): readonly string[] {
  return [...created];
}
