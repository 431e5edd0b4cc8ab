/**
 * Trace random packets through a kube-proxy-style node (10,000 services × 10 endpoints,
 * ~320,000 rules, with the built-in chain jumps): packets/s with the destination index, and
 * the ratio against the naive walk (every rule of every chain), measured in this process on a
 * subset of the same packets. Every run is measured after an untimed warm-up that traces the
 * same packets on a node of its own (the JIT, and the first garbage collections, which move the
 * freshly compiled rule set out of the young generation); CPU time is the fair figure on a
 * shared machine.
 *
 *   npx tsx bench/trace.ts            # full size
 *   npx tsx bench/trace.ts --quick    # 1,000 services × 10 endpoints, 10,000 packets
 */
import { parseIptables } from "../src/netfilter/index.js";
import {
  buildDataplane,
  flowCacheStats,
  trace,
  type PacketSpec,
} from "../src/netfilter/trace/index.js";
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

export function withJumps(dump: string): string {
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

export function packets(n: number, services: number): PacketSpec[] {
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
  const node = () =>
    buildDataplane({
      ruleSets: [ruleSet],
      interfaces: [
        { name: "lo", addresses: ["127.0.0.1/8"] },
        { name: "eth0", addresses: ["192.168.0.2/24"] },
        { name: "cbr0", addresses: ["10.244.0.1/14"] },
      ],
    });
  const list = packets(count, services);
  const cold = { explain: false, flowCache: false };
  const cachedOpts = { explain: false };
  t = performance.now();
  trace(node(), list[0]!, cold); // compiles the index once (cached with the rule set)
  console.log(`index built in ${(performance.now() - t).toFixed(0)} ms`);
  // Warm-up, untimed: the JIT, the index's per-destination candidate lists, and the first
  // garbage collections that move the freshly compiled rule set out of the young generation.
  // It traces every packet the measured runs trace, on nodes of their own (the flow cache's
  // on a second one, so the measured runs start with it empty and the code has met a new
  // node): the JIT then has seen every path they take. A warm-up of the first 5,000 packets
  // left one out. Packet 13,715 is the first to service 0, whose endpoints include the node's
  // own cbr0 address (10.244.0.1): delivered locally (INPUT, not FORWARD). There V8 threw away
  // the walk's optimized code and compiled it again, inside the measured run: about 0.1-0.3 s
  // of CPU, a tenth to a fifth of it (docs/tracer-performance.md, "The warm-up").
  t = performance.now();
  const scratch = node();
  for (const p of list) trace(scratch, p, cold);
  const scratchCached = node();
  for (const p of list.slice(0, warmup)) trace(scratchCached, p, cold);
  for (const p of list) trace(scratchCached, p, cachedOpts);
  console.log(
    `warm-up: ${count} packets on a node, ${warmup} + ${count} (flow cache) on another, in ${(performance.now() - t).toFixed(0)} ms`,
  );
  // CPU time as well as wall time: on a shared machine the CPU figure is the fair one.
  const measure = (f: () => void): { wall: number; cpu: number } => {
    const w = performance.now();
    const c = process.cpuUsage();
    f();
    const used = process.cpuUsage(c);
    return { wall: performance.now() - w, cpu: (used.user + used.system) / 1000 };
  };
  const report = (label: string, n: number, m: { wall: number; cpu: number }, extra = "") => {
    const rate = (n / m.cpu) * 1000;
    console.log(
      `${label}: ${n} packets in ${m.wall.toFixed(0)} ms wall / ${m.cpu.toFixed(0)} ms CPU = ` +
        `${rate.toFixed(0)} packets/CPU-s, ${((n / m.wall) * 1000).toFixed(0)} packets/s wall${extra}`,
    );
    return rate;
  };
  let outcomes = 0;
  const walkDp = node();
  const walked = measure(() => {
    for (const p of list) outcomes += trace(walkDp, p, cold).outcomes.length;
  });
  const walkRate = report(
    "indexed walk, no flow cache",
    count,
    walked,
    ` (${(outcomes / count).toFixed(2)} outcomes/packet); target ≥ 100,000/s`,
  );
  const cachedDp = node();
  const cached = measure(() => {
    for (const p of list) trace(cachedDp, p, cachedOpts);
  });
  const st = flowCacheStats(cachedDp)!;
  const cachedRate = report(
    "indexed walk + flow cache (empty at start)",
    count,
    cached,
    `; ${st.hits} hits, ${st.misses} misses (${st.uncacheable} not cacheable), ${st.entries} entries over ${st.masks} source masks`,
  );
  const subset = list.slice(0, naiveCount);
  // Untimed: compiles the naive rule set and warms its path (the JIT takes a few hundred
  // packets to settle), as for the indexed run.
  const naiveOpts = { explain: false, indexed: false };
  for (const p of subset) trace(walkDp, p, naiveOpts);
  const naive = measure(() => {
    for (const p of subset) trace(walkDp, p, naiveOpts);
  });
  const naiveRate = report("naive walk", naiveCount, naive);
  console.log(
    `ratios: the indexed walk is ${(walkRate / naiveRate).toFixed(0)}× the naive walk; ` +
      `with the flow cache ${(cachedRate / naiveRate).toFixed(0)}× (${(cachedRate / walkRate).toFixed(1)}× the indexed walk)`,
  );
  // Warmed as the walks above: the same packets once, on a node of its own.
  const explained = Math.min(count, 20_000);
  for (const p of list.slice(0, explained)) trace(scratch, p, {});
  const explainedDp = node();
  const e = measure(() => {
    for (const p of list.slice(0, explained)) trace(explainedDp, p, {});
  });
  report("with explanations (breadth-first walk, not cached)", explained, e);
}

if (process.argv[1]?.endsWith("trace.ts")) main();
