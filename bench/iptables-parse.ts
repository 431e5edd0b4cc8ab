/**
 * Parse a kube-proxy-style iptables-restore dump (10,000 services × 10 endpoints, ~320,000
 * rules) and compare with `iptables-restore --test` on the same file in a scratch netns, by CPU
 * time (the machine is shared). Both run as fresh processes, taking turns, best of 3: ours is
 * process.cpuUsage around one parseIptables call in a child process (cold JIT, empty value
 * caches, as `kube-netsim parse` runs; reading the file and Node's start-up are not counted),
 * iptables-restore's is the children's cutime + cstime. A warm re-parse in one process is
 * printed too, for information: it reuses the JIT and the caches, so it is not the comparison.
 *
 *   npx tsx bench/iptables-parse.ts           # full size
 *   npx tsx bench/iptables-parse.ts --quick   # 500 services × 4 endpoints (CI smoke)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { createNetns, deleteNetns, kernelSkipReason } from "../src/backends/netns.js";
import { parseIptables } from "../src/netfilter/index.js";

function hash(s: string): string {
  return createHash("sha256")
    .update(s)
    .digest("base64")
    .replace(/[^A-Z0-9]/gi, "")
    .slice(0, 16)
    .toUpperCase();
}

/** A dump shaped like kube-proxy's iptables proxier output (restore order, bare addresses). */
export function kubeProxyDump(services: number, endpoints: number): string {
  const filter: string[] = [
    "*filter",
    ":KUBE-SERVICES - [0:0]",
    ":KUBE-EXTERNAL-SERVICES - [0:0]",
    ":KUBE-FORWARD - [0:0]",
    ":KUBE-NODEPORTS - [0:0]",
  ];
  filter.push(
    "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP",
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT',
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
  );
  const natChains: string[] = [
    ":KUBE-SERVICES - [0:0]",
    ":KUBE-NODEPORTS - [0:0]",
    ":KUBE-POSTROUTING - [0:0]",
    ":KUBE-MARK-MASQ - [0:0]",
  ];
  const natRules: string[] = [
    "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN",
    "-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000",
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
    "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000",
  ];
  for (let s = 0; s < services; s++) {
    const name = `ns${s % 100}/svc${s}:http`;
    const cip = `172.${16 + ((s >> 16) & 15)}.${(s >> 8) & 255}.${s & 255}`;
    const svc = `KUBE-SVC-${hash(`svc${s}`)}`;
    natChains.push(`:${svc} - [0:0]`);
    natRules.push(
      `-A KUBE-SERVICES -m comment --comment "${name} cluster IP" -m tcp -p tcp -d ${cip} --dport 80 -j ${svc}`,
    );
    natRules.push(
      `-A ${svc} -m comment --comment "${name} cluster IP" -m tcp -p tcp -d ${cip} --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ`,
    );
    for (let e = 0; e < endpoints; e++) {
      const ep = `10.${244 + ((s >> 14) & 3)}.${(s >> 6) & 255}.${((s & 63) << 2) + (e & 3)}`;
      const sep = `KUBE-SEP-${hash(`svc${s}-${e}`)}`;
      natChains.push(`:${sep} - [0:0]`);
      const left = endpoints - e;
      const prob =
        left > 1 ? ` -m statistic --mode random --probability ${(1 / left).toFixed(10)}` : "";
      natRules.push(`-A ${svc} -m comment --comment "${name} -> ${ep}:8080"${prob} -j ${sep}`);
      natRules.push(`-A ${sep} -m comment --comment ${name} -s ${ep} -j KUBE-MARK-MASQ`);
      natRules.push(
        `-A ${sep} -m comment --comment ${name} -m tcp -p tcp -j DNAT --to-destination ${ep}:8080`,
      );
    }
  }
  natRules.push(
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
  );
  return [...filter, "COMMIT", "*nat", ...natChains, ...natRules, "COMMIT", ""].join("\n");
}

function best(runs: number, f: () => void): { wall: number; cpu: number } {
  let b = { wall: Infinity, cpu: Infinity };
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    f();
    const used = process.cpuUsage(c);
    const cpu = (used.user + used.system) / 1000;
    if (cpu < b.cpu) b = { wall: performance.now() - t, cpu };
  }
  return b;
}

/** CPU time (ms) of this process's waited-for children so far (the machine is shared: wall time is noisy). */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 16 and 17 (cutime, cstime) in clock ticks; 100 per second on Linux.
  return (Number(f[13]) + Number(f[14])) * 10;
}

/**
 * `--child FILE`: one parse of FILE in this fresh process (cold JIT, empty value caches, as
 * `kube-netsim parse` runs), printing `{ cpu, wall, rules }` as JSON. Reading the file is not
 * counted, nor is Node's start-up.
 */
function child(file: string): void {
  const text = readFileSync(file, "utf8");
  const t = performance.now();
  const c = process.cpuUsage();
  const rs = parseIptables(text, { file: "bench.rules", family: "IPv4" });
  const used = process.cpuUsage(c);
  const wall = performance.now() - t;
  const rules = rs.tables.reduce(
    (n, tb) => n + tb.chains.reduce((m, ch) => m + ch.rules.length, 0),
    0,
  );
  process.stdout.write(JSON.stringify({ cpu: (used.user + used.system) / 1000, wall, rules }));
}

interface Run {
  readonly cpu: number;
  readonly wall: number;
}

/** One parse of `file` in a fresh process, like iptables-restore's. */
function oursInFreshProcess(file: string): Run & { rules: number } {
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", import.meta.filename, "--child", file],
    {
      encoding: "utf8",
      maxBuffer: 1 << 20,
    },
  );
  if (r.status !== 0) throw new Error(`child parse failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Run & { rules: number };
}

/** One `iptables-restore --test` of `file` in `ns`: the children's CPU time, and its status. */
function iptablesRestore(ns: string, file: string): Run & { status: number | null } {
  const before = childrenCpuMs();
  const t = performance.now();
  const status = spawnSync(
    "ip",
    ["netns", "exec", ns, "sh", "-c", `iptables-restore --test < ${file}`],
    { stdio: "inherit" },
  ).status;
  return { cpu: childrenCpuMs() - before, wall: performance.now() - t, status };
}

function better<R extends Run>(a: R | undefined, b: R): R {
  return a === undefined || b.cpu < a.cpu ? b : a;
}

function main(): void {
  const quick = process.argv.includes("--quick");
  const [services, endpoints] = quick ? [500, 4] : [10_000, 10];
  const text = kubeProxyDump(services, endpoints);
  const rules = text.split("\n").filter((l) => l.startsWith("-A")).length;
  console.log(
    `dump: ${services} services × ${endpoints} endpoints, ${rules} rules, ${(text.length / 1e6).toFixed(1)} MB`,
  );
  const dir = mkdtempSync(join(tmpdir(), "kns-nf-bench-"));
  const file = join(dir, "dump.rules");
  writeFileSync(file, text);
  const reason = kernelSkipReason(["root", "ip", "iptables"]);
  const ns = reason === undefined ? createNetns("kns-nf") : undefined;
  try {
    // The two programs take turns, so that both see the machine at the same speeds (it is
    // shared, and its speed drifts by up to 2× within minutes); the best run of each counts.
    let ours: (Run & { rules: number }) | undefined;
    let kernel: (Run & { status: number | null }) | undefined;
    for (let k = 0; k < (quick ? 1 : 3); k++) {
      ours = better(ours, oursInFreshProcess(file));
      if (ns !== undefined) kernel = better(kernel, iptablesRestore(ns.name, file));
    }
    const o = ours as Run & { rules: number };
    console.log(
      `kube-netsim parseIptables (fresh process, best of ${quick ? 1 : 3}): ${o.cpu.toFixed(0)} ms CPU, ${o.wall.toFixed(0)} ms wall (${o.rules} rules, ${((o.rules / o.cpu) * 1000).toFixed(0)} rules per CPU second)`,
    );
    // Parsing again in one process reuses the JIT and the value caches: shown, not compared.
    const warm = best(3, () => parseIptables(text, { file: "bench.rules", family: "IPv4" }));
    console.log(`  (again in one warm process, best of 3: ${warm.cpu.toFixed(0)} ms CPU)`);
    if (kernel === undefined) {
      console.log(`iptables-restore --test: not measured (${reason ?? ""})`);
      return;
    }
    console.log(
      `iptables-restore --test (best of ${quick ? 1 : 3}, taking turns with ours): ${kernel.cpu.toFixed(0)} ms CPU, ${kernel.wall.toFixed(0)} ms wall (exit ${kernel.status})`,
    );
    console.log(
      `ratio (CPU time): kube-netsim is ${(kernel.cpu / o.cpu).toFixed(1)}× faster (target ≥ 5×); warm, for information: ${(kernel.cpu / warm.cpu).toFixed(1)}×`,
    );
  } finally {
    if (ns !== undefined) deleteNetns(ns);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("iptables-parse.ts")) {
  const at = process.argv.indexOf("--child");
  if (at >= 0) child(process.argv[at + 1]!);
  else main();
}
