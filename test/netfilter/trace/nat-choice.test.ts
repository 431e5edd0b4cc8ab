/**
 * natRangeChoice and the kernel's jhash2 it rests on. Goldens come from Bob Jenkins' lookup3.c
 * self-test (driver5) and from the Linux kernel itself: addresses and ports that real
 * connections reached in the client/node/server topology of nat-choice-kernel.test.ts
 * (recorded once from its probes; that test checks the same rules on every run).
 */
import { describe, expect, test } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { formatIP, parseIP, type IPAddress } from "../../../src/net/index.js";
import { jhash2, reciprocalScale } from "../../../src/netfilter/trace/jhash.js";
import {
  natRangeChoice,
  type NatChoice,
  type NatChoiceOptions,
  type NatManip,
} from "../../../src/netfilter/trace/nat-choice.js";
import type { NatRange } from "../../../src/netfilter/targets/index.js";
import type { L4Protocol } from "../../../src/netfilter/model.js";

const ip = (s: string): IPAddress => {
  const a = parseIP(s);
  if (a === undefined) throw new Error(`bad address ${s}`);
  return a;
};

/** `a-b[:p-q]` without brackets (tests only). */
function natRange(addrs: string, ports?: string): NatRange {
  const [from, to] = addrs.split("-") as [string, string | undefined];
  const r: { -readonly [K in keyof NatRange]: NatRange[K] } = {
    ipFrom: ip(from),
    ipTo: ip(to ?? from),
  };
  if (ports !== undefined) {
    const [p, q] = ports.split("-").map(Number) as [number, number | undefined];
    r.ports = { from: p, to: q ?? p };
  }
  return r;
}

const PLAIN: NatChoiceOptions = { persistent: false, random: false, randomFully: false };

function choose(
  range: NatRange,
  manip: NatManip,
  conn: { src: string; sport: number; dst: string; dport: number; protocol?: L4Protocol },
  opts: Partial<NatChoiceOptions> = {},
): NatChoice {
  return natRangeChoice(
    range,
    {
      protocol: conn.protocol ?? "tcp",
      src: ip(conn.src),
      sport: conn.sport,
      dst: ip(conn.dst),
      dport: conn.dport,
    },
    manip,
    { ...PLAIN, ...opts },
  );
}

/** `addr:port`, or `addr:from..to` for a random port. */
function text(c: NatChoice): string {
  return c.kind === "exact"
    ? `${formatIP(c.ip)}:${c.port}`
    : `${formatIP(c.ip)}:${c.ports.from}..${c.ports.to}`;
}

/** Little-endian 32-bit words of a byte string, zero-padded to a multiple of 4. */
function leWords(s: string): number[] {
  const bytes = Buffer.from(s, "latin1");
  const padded = Buffer.concat([bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4)]);
  const out: number[] = [];
  for (let i = 0; i < padded.length; i += 4) out.push(padded.readUInt32LE(i));
  return out;
}

describe("jhash2", () => {
  test("no words: the start value, unmixed", () => {
    expect(jhash2([], 0)).toBe(0xdeadbeef);
    expect(jhash2([], 1)).toBe(0xdeadbef0);
  });

  // lookup3.c driver5: hashlittle("Four score and seven years ago", 30, initval) is 0x17770551
  // (initval 0) and 0xcd628161 (initval 1). On a little-endian machine hashlittle of 30 bytes is
  // hashword (= jhash2) of the 8 zero-padded little-endian words, except that its start value
  // counts 30 bytes where jhash2 counts 8 * 4 = 32: an initval 2 lower makes up for it.
  test("lookup3 driver5 vectors", () => {
    const words = leWords("Four score and seven years ago");
    expect(words).toHaveLength(8);
    expect(jhash2(words, (0 - 2) >>> 0)).toBe(0x17770551);
    expect(jhash2(words, (1 - 2) >>> 0)).toBe(0xcd628161);
  });

  // A kernel-computed value. DNAT 2001:db8:51::2 -> 2001:db8:96::2:1 into
  // 2001:db8:190:1::-2001:db8:190:2::ffff reached 2001:db8:190:1:552b:6e18:4d45:454b. Word 1
  // took its minimum (not max's), so words 2 and 3 are "full range": word 2 =
  // reciprocal_scale(j2, 2^32 - 1) = j2 - 1, where j2 = jhash2 ^ (the chosen words 0 and 1 as
  // stored, byte-swapped). Hence jhash2(stored 2001:db8:51::2, seed = stored 0x00020001).
  test("a value the kernel computed (recovered from a full-range IPv6 choice)", () => {
    const swap = (w: number): number => Buffer.from(Uint32Array.of(w).buffer).readUInt32BE(0);
    const j2 = 0x552b6e18 + 1;
    const j = (j2 ^ swap(0x20010db8) ^ swap(0x01900001)) >>> 0;
    const stored = [0x20010db8, 0x00510000, 0, 0x00000002].map(swap);
    expect(jhash2(stored, swap(0x00020001))).toBe(j);
    // Word 3 is the same with the chosen word 2 xored in: the kernel's 0x4d45454b.
    expect(reciprocalScale((j2 ^ swap(0x552b6e18)) >>> 0, 0xffffffff)).toBe(0x4d45454b);
  });
});

describe("reciprocalScale", () => {
  test("edges", () => {
    expect(reciprocalScale(0, 7)).toBe(0);
    expect(reciprocalScale(0xffffffff, 3)).toBe(2);
    expect(reciprocalScale(0xffffffff, 0xffffffff)).toBe(0xfffffffe);
    expect(reciprocalScale(0x80000000, 0x10000)).toBe(0x8000);
    expect(reciprocalScale(12345, 0)).toBe(0);
  });

  it.prop([fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff })], { numRuns: 200 })(
    "is (val * ep_ro) >> 32 on 64 bits",
    (val, ep) => {
      expect(reciprocalScale(val, ep)).toBe(Number((BigInt(val) * BigInt(ep)) >> 32n));
    },
  );
});

describe("natRangeChoice: what the kernel chose", () => {
  const C4 = "198.51.100.2";
  const C6 = "2001:db8:51::2";

  test("IPv4 DNAT into a /16: the destination picks the address", () => {
    const r = natRange("10.190.0.0-10.190.255.255", "8090");
    const got = [1, 2, 3, 4, 5, 6].map((i) =>
      text(choose(r, "dst", { src: C4, sport: 20000 + i, dst: `10.96.0.${i}`, dport: 80 })),
    );
    expect(got).toEqual([
      "10.190.37.53:8090",
      "10.190.145.24:8090",
      "10.190.144.80:8090",
      "10.190.149.187:8090",
      "10.190.55.153:8090",
      "10.190.100.15:8090",
    ]);
  });

  test("IPv4 DNAT (UDP) to three servers", () => {
    const r = natRange("10.180.0.1-10.180.0.3");
    const got = [1, 2, 3, 4].map((i) =>
      text(
        choose(r, "dst", {
          protocol: "udp",
          src: C4,
          sport: 20065 + i,
          dst: `10.96.1.${i}`,
          dport: 8080,
        }),
      ),
    );
    expect(got).toEqual([
      "10.180.0.3:8080",
      "10.180.0.3:8080",
      "10.180.0.2:8080",
      "10.180.0.2:8080",
    ]);
  });

  test("--persistent: the same address for every destination", () => {
    const r = natRange("10.190.2.0-10.190.2.255", "8090");
    for (const d of ["10.96.2.1", "10.96.2.2", "10.96.2.3"])
      expect(
        text(choose(r, "dst", { src: C4, sport: 1, dst: d, dport: 80 }, { persistent: true })),
      ).toBe("10.190.2.196:8090");
    const r6 = natRange("2001:db8:190:4::-2001:db8:190:5::ffff", "8090");
    expect(
      text(
        choose(
          r6,
          "dst",
          { src: C6, sport: 1, dst: "2001:db8:96::4:3", dport: 80 },
          { persistent: true },
        ),
      ),
    ).toBe("2001:db8:190:5::982d:8090");
  });

  test("DNAT port range: kept inside it, the first port outside it", () => {
    const r = natRange("10.190.3.0-10.190.3.200", "8090-8093");
    const at = (dport: number): string =>
      text(choose(r, "dst", { src: C4, sport: 9, dst: "10.96.3.1", dport }));
    expect([at(8091), at(8093), at(80)]).toEqual([
      "10.190.3.175:8091",
      "10.190.3.175:8093",
      "10.190.3.175:8090",
    ]);
  });

  test("DNAT --random: the address is still hashed, the port kept; with ports, a random one", () => {
    const r = natRange("10.190.4.0-10.190.4.255");
    const conn = { src: C4, sport: 9, dst: "10.96.4.1", dport: 8092 };
    expect(text(choose(r, "dst", conn, { random: true }))).toBe("10.190.4.89:8092");
    const rp = natRange("10.190.10.0-10.190.10.255", "8090-8093");
    const c2 = { src: C4, sport: 9, dst: "10.96.10.1", dport: 8091 };
    expect(text(choose(rp, "dst", c2, { random: true }))).toBe("10.190.10.131:8090..8093");
  });

  test("IPv4 SNAT: hashed on the source, seeded by the destination", () => {
    const r = natRange("10.181.0.0-10.181.255.255");
    expect(text(choose(r, "src", { src: C4, sport: 20231, dst: "10.190.5.1", dport: 8090 }))).toBe(
      "10.181.113.53:20231",
    );
    expect(text(choose(r, "src", { src: C4, sport: 20232, dst: "10.190.5.77", dport: 8090 }))).toBe(
      "10.181.16.43:20232",
    );
  });

  test("SNAT port range: kept inside it, random outside it", () => {
    const r = natRange("10.181.6.0-10.181.6.255", "40000-40100");
    const from = (sport: number): string =>
      text(choose(r, "src", { src: C4, sport, dst: "10.190.6.1", dport: 8091 }));
    expect([from(40007), from(40100), from(30001)]).toEqual([
      "10.181.6.217:40007",
      "10.181.6.217:40100",
      "10.181.6.217:40000..40100",
    ]);
  });

  test("SNAT keeps a source already in the range, unless --random or its port is outside", () => {
    const r = natRange("198.51.100.0-198.51.100.100");
    const conn = { src: C4, sport: 20264, dst: "10.190.8.1", dport: 8090 };
    expect(text(choose(r, "src", conn))).toBe("198.51.100.2:20264");
    expect(text(choose(r, "src", conn, { random: true }))).toBe("198.51.100.34:1024..65535");
    const c2 = { ...conn, dst: "10.190.8.200" };
    expect(text(choose(r, "src", c2, { randomFully: true }))).toBe("198.51.100.54:1024..65535");
    const rp = natRange("198.51.100.0-198.51.100.100", "30000-30999");
    const c3 = { src: C4, sport: 30500, dst: "10.190.11.1", dport: 8090 };
    expect(text(choose(rp, "src", c3))).toBe("198.51.100.2:30500");
    expect(text(choose(rp, "src", { ...c3, sport: 29999 }))).toBe("198.51.100.16:30000..30999");
  });

  test("SNAT after DNAT is seeded by the translated destination", () => {
    const d = natRange("10.190.9.0-10.190.9.255", "8092");
    const s = natRange("10.181.9.0-10.181.9.255");
    const want = [
      ["10.96.9.1", "10.190.9.101:8092", "10.181.9.253:20308"],
      ["10.96.9.2", "10.190.9.206:8092", "10.181.9.143:20309"],
      ["10.96.9.3", "10.190.9.79:8092", "10.181.9.243:20310"],
    ] as const;
    want.forEach(([vip, server, source], i) => {
      const conn = { src: C4, sport: 20308 + i, dst: vip, dport: 80 };
      const dn = choose(d, "dst", conn);
      expect(text(dn)).toBe(server);
      if (dn.kind !== "exact") throw new Error("exact expected");
      const sn = choose(s, "src", { ...conn, dst: formatIP(dn.ip), dport: dn.port });
      expect(text(sn)).toBe(source);
    });
  });

  test("IPv6 DNAT: within the last word, across the third, across the second", () => {
    const cases = [
      ["2001:db8:190::-2001:db8:190::ffff", "2001:db8:96::1", "2001:db8:190::5d11"],
      ["2001:db8:190::-2001:db8:190::ffff", "2001:db8:96::4", "2001:db8:190::2e6e"],
      [
        "2001:db8:190::ffff:ffff:0-2001:db8:190::1:0:0:ffff",
        "2001:db8:96::1:1",
        "2001:db8:190:0:1::1ea3",
      ],
      [
        "2001:db8:190::ffff:ffff:0-2001:db8:190::1:0:0:ffff",
        "2001:db8:96::1:2",
        "2001:db8:190::ffff:89d5:708",
      ],
      [
        "2001:db8:190:1::-2001:db8:190:2::ffff",
        "2001:db8:96::2:1",
        "2001:db8:190:1:552b:6e18:4d45:454b",
      ],
      ["2001:db8:190:1::-2001:db8:190:2::ffff", "2001:db8:96::2:2", "2001:db8:190:2::b8cd"],
    ] as const;
    for (const [r, vip, want] of cases) {
      const c = choose(natRange(r, "8090"), "dst", { src: C6, sport: 1, dst: vip, dport: 80 });
      expect(formatIP(c.ip)).toBe(want);
    }
  });

  test("IPv6 SNAT across the third word, and with --random-fully and a port range", () => {
    const r = natRange("2001:db8:181::ffff:ffff:0-2001:db8:181::1:0:0:ffff");
    const conn = { src: C6, sport: 21231, dst: "2001:db8:190:7::1", dport: 8090 };
    expect(text(choose(r, "src", conn))).toBe("2001:db8:181::ffff:5a11:81ea:21231");
    expect(text(choose(r, "src", { ...conn, dst: "2001:db8:190:7::99" }))).toBe(
      "2001:db8:181:0:1::46fc:21231",
    );
    const rp = natRange("2001:db8:181:d::-2001:db8:181:d::ff", "40000-40100");
    const c2 = { src: C6, sport: 40050, dst: "2001:db8:190:d::1", dport: 8090 };
    expect(text(choose(rp, "src", c2, { randomFully: true }))).toBe(
      "2001:db8:181:d::50:40000..40100",
    );
  });
});

describe("natRangeChoice: rules", () => {
  const conn = { src: "198.51.100.2", sport: 20000, dst: "10.96.0.1", dport: 80 };

  test("a single address is taken as is; no address keeps the tuple's", () => {
    expect(text(choose(natRange("10.0.0.9"), "dst", conn))).toBe("10.0.0.9:80");
    const portsOnly: NatRange = { ports: { from: 8080, to: 8080 } };
    expect(text(choose(portsOnly, "dst", conn))).toBe("10.96.0.1:8080");
    expect(text(choose(portsOnly, "src", conn))).toBe("198.51.100.2:8080");
  });

  test("SNAT --random without ports: the source port's class", () => {
    const r = natRange("10.181.0.0-10.181.0.9");
    const classOf = (sport: number): string => {
      const c = choose(r, "src", { ...conn, sport }, { random: true });
      return c.kind === "random-port" ? `${c.ports.from}-${c.ports.to}` : `exact ${c.port}`;
    };
    expect([classOf(80), classOf(511), classOf(512), classOf(1023), classOf(1024)]).toEqual([
      "1-511",
      "1-511",
      "600-1023",
      "600-1023",
      "1024-65535",
    ]);
  });

  test("a one-port range is exact even when random", () => {
    const r = natRange("10.0.0.1-10.0.0.9", "8080");
    expect(choose(r, "dst", conn, { random: true }).kind).toBe("exact");
    expect(choose(r, "src", conn, { randomFully: true }).kind).toBe("exact");
  });

  test("protocols without ports keep the port field", () => {
    const r = natRange("10.0.0.1-10.0.0.9");
    const c = choose(r, "dst", { ...conn, protocol: "icmp", sport: 0, dport: 0 }, { random: true });
    expect(c).toMatchObject({ kind: "exact", port: 0 });
  });

  test("mixed families are a programming error", () => {
    expect(() => choose(natRange("2001:db8::1-2001:db8::2"), "dst", conn)).toThrow(/IPv6/);
  });

  const v4 = fc.nat({ max: 0xffffffff });

  it.prop([v4, v4, v4, fc.nat({ max: 300 }), fc.nat({ max: 0xffff }), fc.boolean()], {
    numRuns: 200,
  })("IPv4: always inside the range; DNAT ignores the source port", (s, d, lo, n, sport, p) => {
    const from = Math.min(lo, 0xffffffff - n);
    const r: NatRange = {
      ipFrom: { family: "IPv4", value: from },
      ipTo: { family: "IPv4", value: from + n },
    };
    const t = {
      protocol: "tcp" as const,
      src: { family: "IPv4" as const, value: s },
      dst: { family: "IPv4" as const, value: d },
      sport,
      dport: 80,
    };
    const opts = { ...PLAIN, persistent: p };
    const a = natRangeChoice(r, t, "dst", opts);
    expect(a.ip.value).toBeGreaterThanOrEqual(from);
    expect(a.ip.value).toBeLessThanOrEqual(from + n);
    expect(natRangeChoice(r, { ...t, sport: (sport + 1) % 65536 }, "dst", opts).ip).toEqual(a.ip);
  });

  it.prop(
    [
      fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
      fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
      fc.nat({ max: 0xffff }),
    ],
    {
      numRuns: 100,
    },
  )("--persistent: the destination does not matter", (d1, d2, low) => {
    const base = 0x20010db8019000000000000000000000n;
    const r: NatRange = {
      ipFrom: { family: "IPv6", value: base },
      ipTo: { family: "IPv6", value: base + BigInt(low) },
    };
    const src = ip("2001:db8:51::7");
    const pick = (d: bigint): IPAddress =>
      natRangeChoice(
        r,
        { protocol: "udp", src, dst: { family: "IPv6", value: d }, sport: 1, dport: 2 },
        "dst",
        { ...PLAIN, persistent: true },
      ).ip;
    expect(pick(d1)).toEqual(pick(d2));
    expect(BigInt(pick(d1).value) - base).toBeLessThanOrEqual(BigInt(low));
  });
});
