/**
 * The flow cache must never change a trace, nor the depth-first walk it records (fast-walk.ts,
 * checked against the naive walk): on random rule sets over every modelled extension
 * (IPv4 and IPv6) and on kube-proxy-shaped ones with source tests of every prefix length,
 * SNAT / MASQUERADE with and without ports and source-port matches, a run of packets that
 * share destinations but differ in a few source bits and in the source port is traced with
 * the cache and without it; every result (explanations included) and every error must be the
 * same. The runs must also produce hits, or the property would prove nothing.
 */
import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { formatIP, parseIP, type IPFamily } from "../../../src/net/index.js";
import { IptablesParseError, parseIptables } from "../../../src/netfilter/index.js";
import {
  buildDataplane,
  flowCacheStats,
  trace,
  type NodeDataplane,
  type PacketSpec,
  type TraceOptions,
} from "../../../src/netfilter/trace/index.js";
import { restoreText } from "../rule-text.arbitrary.js";
import { soakRuns } from "../../helpers/soak.js";

const INTERFACES = [
  { name: "lo", addresses: ["127.0.0.1/8", "::1/128"] },
  { name: "eth0", addresses: ["192.168.0.2/24", "fd00::2/64"] },
  { name: "cbr0", addresses: ["10.244.0.1/16", "fd00:10::1/64"] },
];

/**
 * The rule set without the rule lines the parser refuses (random rules may use `-i` in OUTPUT
 * and the like, which iptables-restore refuses too): what is left is still a random rule set.
 */
function usable(text: string, family: IPFamily): string | undefined {
  let lines = text.split("\n");
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      parseIptables(lines.join("\n"), { file: "t.rules", family });
      return lines.join("\n");
    } catch (e) {
      if (!(e instanceof IptablesParseError)) throw e;
      const bad = new Set(e.issues.map((i) => (i.source?.line ?? 0) - 1));
      if ([...bad].some((i) => !lines[i]?.startsWith("-A "))) return undefined;
      lines = lines.filter((_, i) => !bad.has(i));
    }
  }
  return undefined;
}

const node = (text: string, family: IPFamily): NodeDataplane =>
  buildDataplane({
    ruleSets: [parseIptables(text, { file: "t.rules", family })],
    interfaces: INTERFACES,
  });

/** The addresses a rule set names, so packets go near its prefixes. */
function addressesIn(text: string, family: IPFamily): string[] {
  const re = family === "IPv4" ? /\b\d{1,3}(?:\.\d{1,3}){3}\b/g : /\b[0-9a-f:]*:[0-9a-f:]+\b/gi;
  const pool = new Set<string>();
  for (const m of text.matchAll(re))
    if (parseIP(m[0], "lenient")?.family === family) pool.add(m[0]);
  for (const i of INTERFACES)
    for (const a of i.addresses) {
      const ip = a.split("/")[0]!;
      if (parseIP(ip, "lenient")?.family === family) pool.add(ip);
    }
  return [...pool];
}

/** `ip` with bit `bit` (0 = the most significant) flipped. */
function flip(ip: string, bit: number): string {
  const a = parseIP(ip, "lenient")!;
  if (a.family === "IPv4")
    return formatIP({ family: "IPv4", value: (a.value ^ (1 << (31 - (bit % 32)))) >>> 0 });
  return formatIP({ family: "IPv6", value: a.value ^ (1n << BigInt(127 - (bit % 128))) });
}

type Outcome = { readonly ok: unknown } | { readonly error: string };
function attempt(f: () => unknown): Outcome {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: String(e) };
  }
}

const totals = { hits: 0, misses: 0, uncacheable: 0, nodes: 0 };

/** Traces `packets` on a cached and an uncached node; both must agree on every packet. */
function agree(text: string, family: IPFamily, packets: readonly PacketSpec[]): void {
  const rules = usable(text, family);
  expect(rules).toBeDefined();
  const cachedNode = node(rules!, family);
  const plainNode = node(rules!, family);
  totals.nodes++;
  for (const explain of [false, true]) {
    const opts: TraceOptions = { explain };
    for (const p of packets) {
      // "all": cheap walks too, so that random rule sets exercise the cache.
      const got = attempt(() => trace(cachedNode, p, { ...opts, flowCache: "all" }));
      const want = attempt(() => trace(plainNode, p, { ...opts, flowCache: false }));
      expect(got).toEqual(want);
      // Property order too: `trace --output json` prints the object as it is.
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      // Without explanations both go through the depth-first walk (fast-walk.ts): the naive
      // walk (every rule, breadth first) is the reference for it.
      if (!explain) {
        const naive = attempt(() => trace(plainNode, p, { ...opts, indexed: false }));
        expect(want).toEqual(naive);
        expect(JSON.stringify(want)).toBe(JSON.stringify(naive));
      }
    }
  }
  const s = flowCacheStats(cachedNode);
  if (s !== undefined) {
    totals.hits += s.hits;
    totals.misses += s.misses;
    totals.uncacheable += s.uncacheable;
  }
}

/** Base packets near the pool's addresses, each followed by variants in the source bits and port. */
function packetRuns(family: IPFamily, pool: readonly string[]): fc.Arbitrary<PacketSpec[]> {
  const width = family === "IPv4" ? 32 : 128;
  const address = fc.oneof(
    fc.constantFrom(...pool),
    fc.tuple(fc.constantFrom(...pool), fc.nat(width - 1)).map(([a, b]) => flip(a, b)),
  );
  const base = fc.record(
    {
      proto: fc.constantFrom("tcp", "udp", "sctp", "icmp"),
      src: address,
      sport: fc.oneof(fc.constantFrom(40000, 80, 1000, 1500), fc.integer({ min: 1, max: 65535 })),
      dst: address,
      dport: fc.oneof(fc.constantFrom(80, 443, 8080), fc.integer({ min: 1, max: 65535 })),
      origin: fc.constantFrom("local", "remote"),
      inInterface: fc.constantFrom("eth0", "cbr0"),
    },
    { requiredKeys: ["proto", "src", "dst", "dport"] },
  ) as fc.Arbitrary<PacketSpec>;
  const variant = fc.record({
    bit: fc.nat(width - 1),
    flipSrc: fc.boolean(),
    sport: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
  });
  return fc
    .array(fc.tuple(base, fc.array(variant, { minLength: 1, maxLength: 6 })), {
      minLength: 1,
      maxLength: 4,
    })
    .map((runs) =>
      runs.flatMap(([b, vs]) => [
        b,
        ...vs.map((v) => ({
          ...b,
          ...(v.flipSrc ? { src: flip(b.src, v.bit) } : {}),
          ...(v.sport !== undefined ? { sport: v.sport } : {}),
        })),
        b,
      ]),
    );
}

const randomCase = (family: IPFamily) =>
  restoreText(family).chain((text) =>
    packetRuns(family, addressesIn(text, family)).map((packets) => ({ text, packets })),
  );

/**
 * kube-proxy's shape: a service chain with a split over endpoints, source tests of every
 * prefix length (negated or not) before it, marks, and SNAT / MASQUERADE with and without
 * ports in POSTROUTING; the packets go to the service with sources near the tested prefixes.
 */
const SERVICE = "172.30.0.10";
const ENDPOINTS = ["10.244.1.5", "10.244.2.6", "192.168.0.2"];
const srcTest = fc
  .tuple(
    fc.constantFrom("", "! "),
    fc.constantFrom("10.244.1.5", "10.240.0.0", "192.168.0.0", "10.244.0.0", "0.0.0.0"),
    fc.integer({ min: 0, max: 32 }),
  )
  // The kernel refuses "! -s" with a /0 prefix.
  .map(([n, a, p]) => `${p === 0 ? "" : n}-s ${a}/${p}`);
const postTarget = fc.constantFrom(
  "-j MASQUERADE",
  "-p tcp -j MASQUERADE --to-ports 1000-2000",
  "-j MASQUERADE --random-fully",
  "-j SNAT --to-source 192.168.0.9",
  "-p udp -j SNAT --to-source 192.168.0.9:5000",
  "-p tcp -j SNAT --to-source 192.168.0.9:1-40000",
  // Ranges: the kernel hashes the source (nat-choice.ts), and keeps a source already inside.
  "-j SNAT --to-source 192.168.0.9-192.168.0.12",
  "-p tcp -j SNAT --to-source 10.240.0.0-10.244.255.255:1000-2000",
  "-j RETURN",
  "-j ACCEPT",
);
const serviceText = fc
  .record({
    pre: fc.array(
      fc.tuple(
        srcTest,
        fc.constantFrom(
          "-j MARK --or-mark 0x4000",
          "-j RETURN",
          "-p tcp -j DNAT --to-destination 10.244.1.1-10.244.9.9:8080-8081",
        ),
      ),
      {
        maxLength: 3,
      },
    ),
    post: fc.array(
      fc.tuple(
        fc.option(srcTest, { nil: undefined }),
        fc.constantFrom("", "-m mark --mark 0x4000/0x4000", "-p tcp -m tcp --sport 1000:40000"),
        postTarget,
      ),
      { maxLength: 3 },
    ),
    filter: fc.array(
      fc.tuple(
        srcTest,
        fc.constantFrom(
          "",
          "-p tcp -m multiport --sports 80,1000:2000",
          "-m addrtype --src-type LOCAL",
        ),
        fc.constantFrom("-j DROP", "-j REJECT", "-j ACCEPT"),
      ),
      { maxLength: 2 },
    ),
  })
  .map(({ pre, post, filter }) =>
    [
      "*filter",
      ":INPUT ACCEPT [0:0]",
      ":FORWARD ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ...filter.map(([s, m, t]) => `-A FORWARD ${s} ${m} ${t}`),
      "COMMIT",
      "*nat",
      ":PREROUTING ACCEPT [0:0]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
      ":SVC - [0:0]",
      "-A PREROUTING -j SVC",
      "-A OUTPUT -j SVC",
      ...pre.map(([s, t]) => `-A SVC ${s} -d ${SERVICE}/32 ${t}`),
      `-A SVC -d ${SERVICE}/32 -p tcp -m tcp --dport 80 -m statistic --mode random --probability 0.5 -j DNAT --to-destination ${ENDPOINTS[0]}:8080`,
      `-A SVC -d ${SERVICE}/32 -p tcp -m tcp --dport 80 -m statistic --mode random --probability 0.5 -j DNAT --to-destination ${ENDPOINTS[1]}:8080`,
      `-A SVC -d ${SERVICE}/32 -p tcp -m tcp --dport 80 -j DNAT --to-destination ${ENDPOINTS[2]}:8080`,
      ...post.map(([s, m, t]) => `-A POSTROUTING ${s ?? ""} ${m} ${t}`),
      "COMMIT",
      "",
    ].join("\n"),
  );
const serviceCase = serviceText.chain((text) =>
  packetRuns("IPv4", [SERVICE, ...ENDPOINTS, "10.244.0.0", "10.240.0.0", "192.168.0.0"]).map(
    (packets) => ({
      text,
      packets: packets.map((p, i) =>
        i % 2 === 0 ? { ...p, dst: SERVICE, dport: 80, proto: "tcp" as const } : p,
      ),
    }),
  ),
);

/**
 * kube-proxy's KUBE-SVC / KUBE-SEP shape: a split over endpoint chains (`-j`, sometimes `-g`),
 * each with up to two `[!] -s` rules (a jump to KUBE-MARK-MASQ, RETURN, ACCEPT, a mark, an
 * address-range DNAT; some with a protocol too) before its DNAT, whose own condition is a
 * protocol, with a mark or a share or not. The depth-first walk takes a jump to a chain of `-s`
 * rules ending in a DNAT without walking it when no `-s` test holds (fast-walk.ts
 * `Walker.leaf`): sources land on both sides of the tests, TCP and UDP.
 */
const sepChain = fc.record({
  pre: fc.array(
    fc.tuple(
      // kube-proxy's own is `-s <endpoint>/32` (hairpin traffic).
      fc.oneof(
        srcTest,
        fc.constantFrom(...ENDPOINTS).map((e) => `-s ${e}/32`),
      ),
      fc.constantFrom(
        "-j KUBE-MARK-MASQ",
        "-j RETURN",
        "-j ACCEPT",
        "-j MARK --or-mark 0x8000",
        "-p tcp -j KUBE-MARK-MASQ",
        "-p tcp -j DNAT --to-destination 10.244.1.1-10.244.9.9:8080-8081",
      ),
    ),
    { maxLength: 2 },
  ),
  // A DNAT to a port needs a protocol (iptables refuses it otherwise).
  last: fc.constantFrom(
    "-p tcp -m tcp",
    "-p tcp -m tcp",
    "-p udp -m udp",
    "-p tcp",
    "-p tcp -m mark --mark 0x4000/0x4000",
    "-p udp -m statistic --mode random --probability 0.5000000000",
  ),
  endpoint: fc.constantFrom(...ENDPOINTS),
  port: fc.constantFrom(8080, 53),
  jump: fc.constantFrom("-j", "-j", "-g"),
});
const sepText = fc
  .record({
    masq: fc.option(srcTest, { nil: undefined }),
    seps: fc.array(sepChain, { minLength: 1, maxLength: 4 }),
    post: fc.array(fc.tuple(fc.option(srcTest, { nil: undefined }), postTarget), { maxLength: 2 }),
  })
  .map(({ masq, seps, post }) =>
    [
      "*nat",
      ":PREROUTING ACCEPT [0:0]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
      ":KUBE-MARK-MASQ - [0:0]",
      ":SVC - [0:0]",
      ...seps.map((_, k) => `:SEP${k} - [0:0]`),
      "-A PREROUTING -j SVC",
      "-A OUTPUT -j SVC",
      "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000",
      ...(masq === undefined ? [] : [`-A SVC -d ${SERVICE}/32 ${masq} -j KUBE-MARK-MASQ`]),
      ...seps.map((sep, k) => {
        const left = seps.length - k;
        const share =
          left > 1 ? `-m statistic --mode random --probability ${(1 / left).toFixed(10)} ` : "";
        return `-A SVC -d ${SERVICE}/32 ${share}${sep.jump} SEP${k}`;
      }),
      ...seps.flatMap((sep, k) => [
        ...sep.pre.map(([src, t]) => `-A SEP${k} ${src} ${t}`),
        `-A SEP${k} ${sep.last} -j DNAT --to-destination ${sep.endpoint}:${sep.port}`,
      ]),
      ...post.map(([src, t]) => `-A POSTROUTING ${src ?? ""} ${t}`),
      "COMMIT",
      "",
    ].join("\n"),
  );
/** Sources the SEP chains test, and next to them. */
const SEP_SOURCES = [...ENDPOINTS, "10.244.0.0", "10.240.0.0", "192.168.0.0"];
/**
 * Pairs of packets to the service from sources one bit apart (`flip`), the second from the
 * tested address itself: a trace of the first kept under a key that left out a source bit a
 * `-s` test read would be wrongly given to the second.
 */
const twinSources = fc.array(
  fc.tuple(
    fc.constantFrom(...SEP_SOURCES),
    fc.oneof(fc.constant(31), fc.nat(31)),
    fc.constantFrom("tcp", "udp"),
  ),
  { minLength: 1, maxLength: 3 },
);
const sepCase = sepText.chain((text) =>
  fc.tuple(packetRuns("IPv4", [SERVICE, ...SEP_SOURCES]), twinSources).map(([packets, twins]) => ({
    text,
    packets: [
      ...packets.map((p, i) =>
        i % 3 === 2
          ? p
          : { ...p, dst: SERVICE, proto: i % 3 === 0 ? ("tcp" as const) : ("udp" as const) },
      ),
      ...twins.flatMap(([src, bit, proto]) =>
        [flip(src, bit), src].map((s) => ({ proto, src: s, dst: SERVICE, dport: 80 })),
      ),
    ],
  })),
);

describe("flow cache and depth-first walk", () => {
  it.prop([serviceCase], { numRuns: soakRuns(50, 100) })(
    "kube-proxy-shaped rule sets: cached traces equal uncached ones",
    ({ text, packets }) => agree(text, "IPv4", packets),
  );
  it.prop([sepCase], { numRuns: soakRuns(50, 100) })(
    "kube-proxy-shaped rule sets with KUBE-SEP chains: cached traces equal uncached ones",
    ({ text, packets }) => agree(text, "IPv4", packets),
  );
  it.prop([randomCase("IPv4")], { numRuns: soakRuns(50, 100) })(
    "random IPv4 rule sets over every extension: cached traces equal uncached ones",
    ({ text, packets }) => agree(text, "IPv4", packets),
  );
  it.prop([randomCase("IPv6")], { numRuns: soakRuns(30, 60) })(
    "random IPv6 rule sets over every extension: cached traces equal uncached ones",
    ({ text, packets }) => agree(text, "IPv6", packets),
  );
  it("keeps walks that split or evaluated many conditions, not cheap ones (unless asked)", () => {
    const text = [
      "*nat",
      ":PREROUTING ACCEPT [0:0]",
      ":INPUT ACCEPT [0:0]",
      ":OUTPUT ACCEPT [0:0]",
      ":POSTROUTING ACCEPT [0:0]",
      `-A PREROUTING -d ${SERVICE}/32 -p tcp -m statistic --mode random --probability 0.5 -j DNAT --to-destination ${ENDPOINTS[0]}:80`,
      `-A PREROUTING -d ${SERVICE}/32 -p tcp -j DNAT --to-destination ${ENDPOINTS[1]}:80`,
      "COMMIT",
      "",
    ].join("\n");
    const dp = node(text, "IPv4");
    const cheap = { proto: "tcp" as const, src: "203.0.113.9", dst: "198.51.100.1", dport: 80 };
    const split = { ...cheap, dst: SERVICE };
    trace(dp, cheap, { explain: false });
    trace(dp, cheap, { explain: false });
    expect(flowCacheStats(dp)).toMatchObject({ hits: 0, misses: 2, entries: 0 });
    trace(dp, split, { explain: false });
    trace(dp, split, { explain: false });
    expect(flowCacheStats(dp)).toMatchObject({ hits: 1, misses: 3, entries: 1 });
    trace(dp, cheap, { explain: false, flowCache: "all" });
    trace(dp, cheap, { explain: false, flowCache: "all" });
    expect(flowCacheStats(dp)).toMatchObject({ hits: 2, misses: 4, entries: 2 });
  });

  // Runs after the properties (a file's tests run in order): hits are what they put to the test.
  it("the properties above hit the cache", () => {
    expect(totals.hits).toBeGreaterThan(200);
    expect(totals.misses).toBeGreaterThan(0);
    if (process.env["FLOW_CACHE_STATS"] !== undefined) console.log(totals);
  });
});
