/**
 * netfilter/build records each written rule compactly (its restore line and its clauses) and
 * makes the typed rules from that record only when the rule set is read. Every clause is
 * written here, in both families: the printed text must be what the formatter prints from the
 * built rule set, and the built rule set what the parser reads from that text (the parser is
 * the reference). Problems the typed rule would refuse are refused as the rule is written.
 */
import { describe, expect, test } from "@jest/globals";
import fc from "fast-check";
import { RuleSetBuilder, type SpilledText } from "../../../src/netfilter/build/rule-set-builder.js";
import { formatIptablesRestore } from "../../../src/netfilter/format/restore.js";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import type { IPFamily } from "../../../src/net/index.js";

const ADDR = {
  IPv4: { host: "10.0.0.1", net: "10.1.0.0/16", other: "192.168.0.7" },
  IPv6: { host: "fd00::1", net: "fd00:1::/64", other: "fd00::7" },
} as const;

function writeAll(family: IPFamily): RuleSetBuilder {
  const a = ADDR[family];
  const b = new RuleSetBuilder(family);
  const filter = b.table("filter");
  const nat = b.table("nat");
  filter.declare("KNS-A");
  filter
    .append("KNS-A")
    .comment("two words")
    .protocolMatch("tcp")
    .destination(a.host)
    .dport(80)
    .verdict("ACCEPT");
  filter.append("KNS-A").inInterface("eth0+", true).source(a.net, true).reject();
  filter.append("INPUT").ctstate(["INVALID"]).nfacct("counter").verdict("DROP");
  filter.append("FORWARD").markMatch(0x4000, 0x4000, "0x4000/0x4000").verdict("ACCEPT");
  filter.append("FORWARD").set("kns-set", ["dst", "dst"], true).verdict("RETURN");
  // An unfinished rule is dropped.
  filter.append("KNS-A").comment("never finished");
  filter.append("KNS-A").end();
  nat.append("KNS-SVC").probability("0.50000000000").jump("KNS-SEP");
  nat.append("KNS-SVC").protocol("udp").dport(53).recentCheck("KNS-SEP", 10800).jump("KNS-SEP");
  nat.append("KNS-SEP").source(a.host).jump("KUBE-MARK-MASQ");
  nat.append("KNS-SEP").recentSet("KNS-SEP").protocolMatch("sctp").dnat(a.other, 8080);
  nat.append("POSTROUTING").addrtype("src", "LOCAL", true).masquerade(true);
  nat.append("POSTROUTING").ipvsVirtualService(a.host, "tcp", 443).masquerade(false);
  nat.append("KUBE-MARK-MASQ").mark("or-mark", 0x4000);
  nat.append("OUTPUT").mark("xor-mark", 0x4000, "0x00004000");
  nat.declare("KNS-SVC");
  nat.declare("KNS-SEP");
  nat.declare("KUBE-MARK-MASQ");
  return b;
}

describe("RuleSetBuilder", () => {
  for (const family of ["IPv4", "IPv6"] as const) {
    test(`${family}: restore text, built rule set and parse agree`, () => {
      const b = writeAll(family);
      const text = b.restore();
      expect(text.split("\n").filter((l) => l.startsWith("-A"))).toHaveLength(14);
      expect(text).not.toContain("never finished");
      const built = b.build();
      expect(formatIptablesRestore(built)).toBe(text);
      expect(built).toEqual(parseIptables(text, { file: "<restore>", family }));
      // Built once: the same rule set again.
      expect(b.build()).toBe(built);
    });
  }

  test("more rules than one batch of lines keep their order and chains", () => {
    const b = new RuleSetBuilder("IPv4");
    const nat = b.table("nat");
    for (let i = 0; i < 1500; i++) {
      const chain = `KNS-${i % 3}`;
      if (i < 3) nat.declare(chain);
      nat.append(chain).comment(`rule ${i}`).jump("KUBE-MARK-MASQ");
    }
    nat.declare("KUBE-MARK-MASQ");
    const text = b.restore();
    const built = b.build();
    expect(built.tables[0]?.chains.find((c) => c.name === "KNS-2")?.rules).toHaveLength(500);
    expect(formatIptablesRestore(built)).toBe(text);
    expect(built).toEqual(parseIptables(text, { file: "<restore>", family: "IPv4" }));
  });

  test("an empty builder prints nothing", () => {
    expect(new RuleSetBuilder("IPv4").restore()).toBe("");
  });

  test("what the typed rule would refuse is refused as it is written", () => {
    const nat = new RuleSetBuilder("IPv4").table("nat");
    expect(() => nat.append("PREROUTING").dport(80)).toThrow(/port option needs/);
    expect(() => nat.append("PREROUTING").protocol("icmp").dport(80)).toThrow(/port option/);
    expect(() => nat.append("PREROUTING").source("10.0.0.300")).toThrow(/invalid address/);
    expect(() => nat.append("PREROUTING").dnat("fd00::1", 80)).toThrow(/invalid address/);
  });

  test("a chain is declared once; a built-in chain never; rules may come before the declaration", () => {
    for (const clauses of [true, false]) {
      const b = new RuleSetBuilder("IPv4", { clauses });
      const nat = b.table("nat");
      nat.declare("KNS-A");
      expect(() => nat.declare("KNS-A")).toThrow(/KNS-A declared twice/);
      expect(() => nat.declare("PREROUTING")).toThrow(/PREROUTING declared twice \(or built in\)/);
      nat.append("KNS-B").jump("KNS-A");
      nat.declare("KNS-B");
      expect(() => nat.declare("KNS-B")).toThrow(/KNS-B declared twice/);
      expect(b.restore()).toBe("*nat\n:KNS-A - [0:0]\n:KNS-B - [0:0]\n-A KNS-B -j KNS-A\nCOMMIT\n");
      if (clauses) expect(b.build().tables[0]?.chains.map((c) => c.name)).toContain("KNS-B");
      else expect(() => b.build()).toThrow(/text only/);
    }
  });

  test("declared chains are told apart exactly, whatever their number and the size hint (a Set is the reference)", () => {
    const name = fc.oneof(
      fc.stringMatching(/^KUBE-SEP-[A-Z2-7]{2}$/),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }),
    );
    fc.assert(
      fc.property(
        fc.array(
          name.filter((n) => !n.includes(" ") && !n.includes("\n")),
          { maxLength: 300 },
        ),
        (names) => {
          // A size hint of none (the set grows from its first size), a small one, and a large one.
          for (const [clauses, expectedChains] of [
            [true, 0],
            [false, 0],
            [false, 5],
            [true, 1000],
          ] as const) {
            const b = new RuleSetBuilder("IPv4", { clauses, expectedChains });
            const nat = b.table("nat");
            const seen = new Set<string>(["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"]);
            const declared: string[] = [];
            for (const n of names) {
              expect(nat.has(n)).toBe(seen.has(n));
              if (seen.has(n)) {
                expect(() => nat.declare(n)).toThrow(/declared twice/);
              } else {
                nat.declare(n);
                seen.add(n);
                declared.push(n);
              }
            }
            const lines = declared.map((n) => `:${n} - [0:0]\n`).join("");
            expect(b.restore()).toBe(`*nat\n${lines}COMMIT\n`);
            if (clauses)
              expect(
                b
                  .build()
                  .tables[0]?.chains.slice(4)
                  .map((c) => c.name),
              ).toEqual(declared);
          }
        },
      ),
      { seed: 17, numRuns: 100 },
    );
  });

  test("rules for a chain never declared are refused by both outputs", () => {
    const b = new RuleSetBuilder("IPv4");
    b.table("filter").append("KNS-UNDECLARED").verdict("ACCEPT");
    expect(() => b.restore()).toThrow(/never declared/);
    expect(() => b.build()).toThrow(/never declared/);
  });
});

describe("RuleSetBuilder, text only, spilling its rule lines", () => {
  /** A store that keeps copies, and replays them through one buffer written over each time. */
  function memoryStore(): SpilledText & { readonly appended: () => number } {
    const kept: Buffer[] = [];
    return {
      append: (b) => kept.push(Buffer.from(b)),
      replay: (write) => {
        for (const k of kept) {
          const reused = Buffer.alloc(k.length);
          k.copy(reused);
          write(reused);
          reused.fill(0x21);
        }
      },
      appended: () => kept.length,
    };
  }

  test("the text is the same as kept in memory, however large (the store is used past 1 MiB)", () => {
    for (const rules of [10, 40_000]) {
      const stores: ReturnType<typeof memoryStore>[] = [];
      const texts = [false, true].map((spill) => {
        const b = new RuleSetBuilder("IPv4", {
          clauses: false,
          ...(spill
            ? {
                spill: () => {
                  const s = memoryStore();
                  stores.push(s);
                  return s;
                },
              }
            : {}),
        });
        const filter = b.table("filter");
        const nat = b.table("nat");
        filter.declare("KNS-F");
        for (let i = 0; i < rules; i++) {
          const chain = `KNS-SEP-${i}`;
          nat.declare(chain);
          nat
            .append(chain)
            .comment(`ns/svc${i}:p`)
            .source(`10.0.${i >> 8}.${i & 255}`)
            .jump("KNS-F2");
          // An unfinished rule never reaches the text.
          if (i % 1000 === 0) nat.append(chain).comment("dropped");
          nat
            .append(chain)
            .protocolMatch("tcp")
            .dnat(`10.0.${i >> 8}.${i & 255}`, 8080);
        }
        nat.declare("KNS-F2");
        filter.append("KNS-F").verdict("ACCEPT");
        const pieces: Buffer[] = [];
        b.writeRestore((p) => pieces.push(Buffer.from(p)));
        const text = b.restore();
        expect(Buffer.concat(pieces).toString("latin1")).toBe(text);
        return text;
      });
      expect(texts[1]).toBe(texts[0]);
      expect(texts[0]?.split("\n")).toHaveLength(3 * rules + 8);
      // Small tables keep their lines; a large nat table spills them, in more than one piece.
      if (rules === 10) expect(stores).toHaveLength(0);
      else expect(stores.map((s) => s.appended() > 1)).toEqual([true]);
    }
  });

  test("a builder that keeps the clauses never spills (its rules are read back)", () => {
    const b = new RuleSetBuilder("IPv4", {
      spill: () => {
        throw new Error("spilled");
      },
    });
    const nat = b.table("nat");
    nat.declare("KNS-A");
    for (let i = 0; i < 30_000; i++) nat.append("KNS-A").comment(`rule number ${i}`).jump("KNS-A");
    expect(b.build().tables[0]?.chains.at(-1)?.rules).toHaveLength(30_000);
  });
});
