/**
 * `snapshot collect`: a read-only copy of a node's networking state into a directory. Every
 * command only reads (iptables-save and ip6tables-save through each backend present, ipset
 * save, ipvsadm-save -n, nft list ruleset, ip -j addr/route/link, /proc/modules, sysctls,
 * uname -r); a missing tool or a failing command is noted in the manifest, never fatal.
 * `netns` runs every command inside that network namespace (`ip netns exec`), for tests.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CollectedItem {
  readonly name: string;
  /** File in the snapshot directory (absent when nothing was written). */
  readonly file?: string;
  readonly command: string;
  readonly status: "ok" | "missing" | "failed";
  readonly note?: string;
}

export interface SnapshotManifest {
  readonly kind: "kube-netsim-snapshot";
  readonly version: 1;
  readonly collectedAt: string;
  readonly hostname: string;
  readonly kernel: string;
  readonly netns?: string;
  readonly items: readonly CollectedItem[];
}

export const MANIFEST_FILE = "manifest.json";

interface Source {
  readonly name: string;
  readonly file: string;
  readonly argv: readonly string[];
}

/** Each family through the default, nft and legacy front ends (whichever exist). */
const SOURCES: readonly Source[] = [
  { name: "iptables-save", file: "iptables-save.txt", argv: ["iptables-save"] },
  { name: "iptables-nft-save", file: "iptables-nft-save.txt", argv: ["iptables-nft-save"] },
  {
    name: "iptables-legacy-save",
    file: "iptables-legacy-save.txt",
    argv: ["iptables-legacy-save"],
  },
  { name: "ip6tables-save", file: "ip6tables-save.txt", argv: ["ip6tables-save"] },
  { name: "ip6tables-nft-save", file: "ip6tables-nft-save.txt", argv: ["ip6tables-nft-save"] },
  {
    name: "ip6tables-legacy-save",
    file: "ip6tables-legacy-save.txt",
    argv: ["ip6tables-legacy-save"],
  },
  { name: "ipset save", file: "ipset-save.txt", argv: ["ipset", "save"] },
  { name: "ipvsadm-save", file: "ipvsadm-save.txt", argv: ["ipvsadm-save", "-n"] },
  { name: "nft list ruleset", file: "nft-ruleset.txt", argv: ["nft", "list", "ruleset"] },
  { name: "ip addr", file: "ip-addr.json", argv: ["ip", "-j", "addr", "show"] },
  { name: "ip route", file: "ip-route.json", argv: ["ip", "-j", "route", "show", "table", "all"] },
  { name: "ip link", file: "ip-link.json", argv: ["ip", "-j", "link", "show"] },
  { name: "uname -r", file: "uname.txt", argv: ["uname", "-r"] },
];

export const SYSCTLS: readonly string[] = [
  "net.netfilter.nf_conntrack_tcp_be_liberal",
  "net.ipv4.conf.all.route_localnet",
  "net.ipv4.ip_forward",
  "net.ipv4.vs.conntrack",
];

function hasCommand(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).status === 0;
}

function run(argv: readonly string[], netns: string | undefined) {
  const full = netns !== undefined ? ["ip", "netns", "exec", netns, ...argv] : [...argv];
  return spawnSync(full[0]!, full.slice(1), { encoding: "utf8", maxBuffer: 1 << 30 });
}

export function collectSnapshot(
  outDir: string,
  opts: { readonly netns?: string } = {},
): SnapshotManifest {
  mkdirSync(outDir, { recursive: true });
  const items: CollectedItem[] = [];
  for (const s of SOURCES) {
    const command = s.argv.join(" ");
    if (!hasCommand(s.argv[0]!)) {
      items.push({ name: s.name, command, status: "missing", note: `${s.argv[0]} not installed` });
      continue;
    }
    const r = run(s.argv, opts.netns);
    if (r.status !== 0) {
      const note = (r.stderr || String(r.error ?? "")).trim().split("\n")[0] ?? "";
      items.push({ name: s.name, command, status: "failed", note });
      continue;
    }
    writeFileSync(join(outDir, s.file), r.stdout);
    items.push({ name: s.name, file: s.file, command, status: "ok" });
  }
  // Modules are global (not per namespace): /proc/modules, filtered to what matters.
  try {
    const modules = readFileSync("/proc/modules", "utf8")
      .split("\n")
      .map((l) => l.split(" ")[0] ?? "")
      .filter(
        (m) =>
          m === "sctp" || m.startsWith("ip_vs") || m === "nfnetlink_acct" || m === "br_netfilter",
      );
    writeFileSync(join(outDir, "modules.txt"), modules.map((m) => `${m}\n`).join(""));
    items.push({
      name: "modules",
      file: "modules.txt",
      command: "read /proc/modules",
      status: "ok",
    });
  } catch (e) {
    items.push({
      name: "modules",
      command: "read /proc/modules",
      status: "failed",
      note: String(e),
    });
  }
  const sysctls: Record<string, string> = {};
  for (const key of SYSCTLS) {
    const r = run(["sysctl", "-n", key], opts.netns);
    if (r.status === 0) sysctls[key] = r.stdout.trim();
  }
  writeFileSync(join(outDir, "sysctls.json"), `${JSON.stringify(sysctls, null, 2)}\n`);
  items.push({
    name: "sysctls",
    file: "sysctls.json",
    command: `sysctl -n ${SYSCTLS.join(" ")}`,
    status: "ok",
    ...(Object.keys(sysctls).length < SYSCTLS.length
      ? { note: `absent here: ${SYSCTLS.filter((k) => !(k in sysctls)).join(", ")}` }
      : {}),
  });
  const manifest: SnapshotManifest = {
    kind: "kube-netsim-snapshot",
    version: 1,
    collectedAt: new Date().toISOString(),
    hostname: (run(["uname", "-n"], undefined).stdout ?? "").trim(),
    kernel: (run(["uname", "-r"], undefined).stdout ?? "").trim(),
    ...(opts.netns !== undefined ? { netns: opts.netns } : {}),
    items,
  };
  writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
