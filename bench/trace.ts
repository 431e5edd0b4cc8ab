/**
 * Trace random packets through a kube-proxy-style node (10,000 services × 10 endpoints,
 * ~320,000 rules, with the built-in chain jumps): packets/s with the destination index, and
 * the ratio against the naive walk (every rule of every chain), measured in this process on a
 * subset of the same packets. Both runs are measured after an untimed warm-up (the JIT, and
 * the first garbage collections, which move the freshly compiled rule set out of the young
 * generation); CPU time is the fair figure on a shared machine.
 *
 *   npx tsx bench/trace.ts            # full size
 *   npx tsx bench/trace.ts --quick    # 1,000 services × 10 endpoints, 10,000 packets
 */
import { parseIptables } from "../src/netfilter/index.js";
import { buildDataplane, trace, type PacketSpec } from "../src/netfilter/trace/index.js";
import { kubeProxyDump } from "./iptables-parse.js";

/** The §2.2 jumps from the built-in chains (what `iptables-save` shows on a node). */
const BUILTIN_JUMPS = {
  filter: [
    '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES',
    '-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS',
    '-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD',
    '-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
  ],
  nat: [
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
  ],
};

function withJumps(dump: string): string {
  const [filter, nat] = dump.split("*nat\n") as [string, string];
  const addBefore = (section: string, lines: readonly string[]) =>
    section.replace(/COMMIT\n$/, `${lines.join("\n")}\nCOMMIT\n`);
  return `${addBefore(filter, BUILTIN_JUMPS.filter)}*nat\n${addBefore(nat, BUILTIN_JUMPS.nat)}`;
}

/** A deterministic pseudo-random sequence (no Math.random, so runs compare). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function clusterIP(s: number): string {
  return `172.${16 + ((s >> 16) & 15)}.${(s >> 8) & 255}.${s & 255}`;
}

function packets(n: number, services: number): PacketSpec[] {
  const rnd = lcg(7);
  const out: PacketSpec[] = [];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    const src = `10.${Math.floor(rnd() * 4) + 240}.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 254) + 1}`;
    const sport = 1024 + Math.floor(rnd() * 60000);
    // 90 % service traffic, 5 % a closed service port, 5 % not a service at all.
    if (r < 0.9)
      out.push({
        proto: "tcp",
        src,
        sport,
        dst: clusterIP(Math.floor(rnd() * services)),
        dport: 80,
      });
    else if (r < 0.95)
      out.push({
        proto: "udp",
        src,
        sport,
        dst: clusterIP(Math.floor(rnd() * services)),
        dport: 53,
      });
    else
      out.push({
        proto: "tcp",
        src,
        sport,
        dst: `10.96.${Math.floor(rnd() * 256)}.${Math.floor(rnd() * 256)}`,
        dport: 443,
      });
  }
  return out;
}

function main(): void {
  const quick = process.argv.includes("--quick");
  const services = quick ? 1_000 : 10_000;
  const endpoints = 10;
  const count = quick ? 10_000 : 100_000;
  const naiveCount = quick ? 200 : 300;
  const warmup = quick ? 2_000 : 5_000;
  let t = performance.now();
  const text = withJumps(kubeProxyDump(services, endpoints));
  const ruleSet = parseIptables(text, { file: "bench.rules", family: "IPv4" });
  const rules = ruleSet.tables.reduce(
    (n, tb) => n + tb.chains.reduce((m, c) => m + c.rules.length, 0),
    0,
  );
  console.log(
    `rule set: ${services} services × ${endpoints} endpoints, ${rules} rules (built and parsed in ${(performance.now() - t).toFixed(0)} ms)`,
  );
  const dp = buildDataplane({
    ruleSets: [ruleSet],
    interfaces: [
      { name: "lo", addresses: ["127.0.0.1/8"] },
      { name: "eth0", addresses: ["192.168.0.2/24"] },
      { name: "cbr0", addresses: ["10.244.0.1/14"] },
    ],
  });
  const list = packets(count, services);
  const opts = { explain: false };
  t = performance.now();
  trace(dp, list[0]!, { ...opts, indexed: true }); // compiles the index once
  console.log(`index built in ${(performance.now() - t).toFixed(0)} ms`);
  // Warm-up, untimed: the JIT, the index's per-destination candidate lists, and the first
  // garbage collections that move the freshly compiled rule set out of the young generation.
  t = performance.now();
  for (const p of list.slice(0, warmup)) trace(dp, p, { ...opts, indexed: true });
  console.log(`warm-up: ${warmup} packets in ${(performance.now() - t).toFixed(0)} ms`);
  let outcomes = 0;
  // CPU time as well as wall time: on a shared machine the CPU figure is the fair one.
  const measure = (f: () => void): { wall: number; cpu: number } => {
    const w = performance.now();
    const c = process.cpuUsage();
    f();
    const used = process.cpuUsage(c);
    return { wall: performance.now() - w, cpu: (used.user + used.system) / 1000 };
  };
  const indexed = measure(() => {
    for (const p of list) outcomes += trace(dp, p, { ...opts, indexed: true }).outcomes.length;
  });
  const indexedRate = (count / indexed.cpu) * 1000;
  console.log(
    `indexed: ${count} packets in ${indexed.wall.toFixed(0)} ms wall / ${indexed.cpu.toFixed(0)} ms CPU = ` +
      `${indexedRate.toFixed(0)} packets/CPU-s, ${((count / indexed.wall) * 1000).toFixed(0)} packets/s wall ` +
      `(${(outcomes / count).toFixed(2)} outcomes/packet; target ≥ 100,000/s)`,
  );
  const subset = list.slice(0, naiveCount);
  // Untimed: compiles the naive rule set and warms its path (the JIT takes a few hundred
  // packets to settle), as for the indexed run.
  for (const p of subset) trace(dp, p, { ...opts, indexed: false });
  const naive = measure(() => {
    for (const p of subset) trace(dp, p, { ...opts, indexed: false });
  });
  const naiveRate = (naiveCount / naive.cpu) * 1000;
  console.log(
    `naive:   ${naiveCount} packets in ${naive.wall.toFixed(0)} ms wall / ${naive.cpu.toFixed(0)} ms CPU = ${naiveRate.toFixed(0)} packets/CPU-s`,
  );
  console.log(
    `ratio: the index is ${(indexedRate / naiveRate).toFixed(0)}× faster than the naive walk`,
  );
  t = performance.now();
  const explained = Math.min(count, 10_000);
  for (const p of list.slice(0, explained)) trace(dp, p, { indexed: true });
  console.log(
    `with explanations: ${((explained / (performance.now() - t)) * 1000).toFixed(0)} packets/s`,
  );
}

main();
