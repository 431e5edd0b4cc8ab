import { describe, expect } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { buildDataplane, trace } from "../../../src/netfilter/trace/index.js";
import {
  buildDestinationIndex,
  compileRuleSet,
  compiledChainCount,
  candidateRules,
} from "../../../src/netfilter/trace/chain-index.js";
import { parseIptables } from "../../../src/netfilter/index.js";
import { kubeProxyDump } from "../../../bench/iptables-parse.js";
import type { Rule } from "../../../src/netfilter/model.js";
import { standardOptionsHold } from "../../../src/netfilter/trace/rule-match.js";
import { conntrackMatch } from "../../../src/netfilter/matches/conntrack.js";
import { evaluateMatch } from "../../../src/netfilter/registry.js";
import { ruleMatchesStandard } from "../../../src/netfilter/matches/standard.js";
import type { Target } from "../../../src/netfilter/targets/index.js";
import { parseIP } from "../../../src/net/index.js";
import { candidateList, destinationTable } from "../../../src/netfilter/trace/dest-table.js";
import {
  ACCEPT,
  DROP,
  REJECT,
  RETURN,
  chain,
  dnat,
  goto,
  jump,
  orMark,
  rule,
  ruleSet,
  statistic,
  table,
  tcpDport,
  udpDport,
} from "./builders.js";
import { soakRuns } from "../../helpers/soak.js";

const POOL = ["172.30.0.1", "172.30.0.2", "172.30.0.3", "172.30.0.4", "192.168.0.2", "10.180.0.7"];
const SUBCHAINS = ["S0", "S1", "S2"];

const target = (depth: number): fc.Arbitrary<Target | undefined> =>
  fc.oneof(
    fc.constant(ACCEPT),
    fc.constant(DROP),
    fc.constant(REJECT),
    fc.constant(RETURN),
    fc.constant(undefined),
    fc.integer({ min: 1, max: 3 }).map((b) => orMark(1 << b)),
    fc.constantFrom(...POOL).map((ip) => dnat(`${ip}:8080`)),
    ...(depth < SUBCHAINS.length
      ? [
          fc
            .integer({ min: depth, max: SUBCHAINS.length - 1 })
            .chain((k) => fc.boolean().map((g) => (g ? goto(SUBCHAINS[k]!) : jump(SUBCHAINS[k]!)))),
        ]
      : []),
  );

const ruleArb = (depth: number): fc.Arbitrary<Rule> =>
  fc
    .record({
      t: target(depth),
      dst: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...POOL).map((d) => ({ d })) },
        { weight: 1, arbitrary: fc.constant({ d: "172.30.0.0/24" }) },
        { weight: 1, arbitrary: fc.constantFrom(...POOL).map((notD) => ({ notD })) },
        { weight: 1, arbitrary: fc.constant({}) },
      ),
      port: fc.option(
        fc.record({
          proto: fc.constantFrom("tcp", "udp"),
          port: fc.constantFrom(80, 81),
          negated: fc.boolean(),
        }),
      ),
      p: fc.option(fc.constantFrom(0.5, 0.25, 1)),
    })
    .map(({ t, dst, port, p }) =>
      rule(t, {
        ...dst,
        ...(port !== null ? { p: port.proto } : {}),
        m: [
          ...(port !== null
            ? [(port.proto === "tcp" ? tcpDport : udpDport)(port.port, port.negated)]
            : []),
          ...(p !== null ? [statistic(p)] : []),
        ],
      }),
    );

const ruleSetArb = fc
  .record({
    services: fc.array(ruleArb(0), { minLength: 16, maxLength: 40 }),
    subs: fc.tuple(...SUBCHAINS.map((_, k) => fc.array(ruleArb(k + 1), { maxLength: 5 }))),
    forward: fc.array(ruleArb(SUBCHAINS.length), { minLength: 16, maxLength: 24 }),
  })
  .map(({ services, subs, forward }) =>
    ruleSet([
      table("nat", [
        chain("PREROUTING", [rule(jump("SERVICES"))], "ACCEPT"),
        chain("SERVICES", services),
        ...SUBCHAINS.map((n, k) => chain(n, subs[k]!)),
      ]),
      table("filter", [
        chain(
          "FORWARD",
          forward.map((r) => (r.target?.kind === "jump" ? { ...r, target: ACCEPT } : r)),
          "ACCEPT",
        ),
      ]),
    ]),
  );

const interfaces = [
  { name: "lo", addresses: ["127.0.0.1/8"] },
  { name: "eth0", addresses: ["192.168.0.2/24"] },
];

/** A rule set and a packet to it: destination, port, protocol. */
const traceArgs = [
  ruleSetArb,
  fc.constantFrom(...POOL, "172.30.0.9", "8.8.8.8"),
  fc.constantFrom(80, 81),
  fc.constantFrom("tcp" as const, "udp" as const),
] as const;

describe("chains compiled when first read", () => {
  it.prop([...traceArgs, fc.boolean()], { numRuns: soakRuns(60, 150) })(
    "a trace gives the same result whether every chain was compiled first or only those it meets",
    (rs, dst, port, proto, explain) => {
      // Two equal rule sets, so two compilations: one compiled whole before the trace.
      const eager = structuredClone(rs);
      const all = [...compileRuleSet(eager, true).tables.values()].flatMap((t) => [
        ...t.chains.values(),
      ]);
      expect(all.length).toBe(eager.tables.reduce((n, t) => n + t.chains.length, 0));
      const packet = { proto, src: "203.0.113.2", dst, dport: port };
      const lazy = trace(buildDataplane({ ruleSets: [rs], interfaces }), packet, { explain });
      const whole = trace(buildDataplane({ ruleSets: [eager], interfaces }), packet, { explain });
      expect(lazy).toEqual(whole);
    },
  );

  it("a packet's trace compiles the chains it meets, not the table; iterating compiles all, as written", () => {
    expect.hasAssertions();
    const rs = parseIptables(kubeProxyDump(40, 3), { file: "kp.rules", family: "IPv4" });
    const nat = rs.tables.find((t) => t.name === "nat")!;
    expect(nat.chains.length).toBeGreaterThan(100);
    const dp = buildDataplane({
      ruleSets: [rs],
      interfaces: [...interfaces, { name: "cbr0", addresses: ["10.244.0.1/14"] }],
    });
    const r = trace(dp, { proto: "tcp", src: "203.0.113.2", dst: "172.16.0.7", dport: 80 });
    expect(r.outcomes.length).toBeGreaterThan(0);
    const compiled = compileRuleSet(rs, true).tables.get("nat")!;
    // The built-in chains, KUBE-SERVICES, the Service's KUBE-SVC and KUBE-SEP chains, and the
    // few chains every packet meets (KUBE-POSTROUTING, KUBE-MARK-MASQ...).
    const path = new Set(r.outcomes.flatMap((o) => o.path).map((l) => l.split("#")[0]));
    expect(compiledChainCount(compiled)).toBeGreaterThanOrEqual(
      [...path].filter((l) => l!.startsWith("nat/")).length,
    );
    expect(compiledChainCount(compiled)).toBeLessThan(20);
    expect([...compiled.chains.keys()]).toEqual(nat.chains.map((c) => c.name));
    expect([...compiled.chains.values()].map((c) => c.name)).toEqual(nat.chains.map((c) => c.name));
    expect(compiledChainCount(compiled)).toBe(nat.chains.length);
  });
});

describe("destination index", () => {
  it.prop([...traceArgs], { numRuns: 150 })(
    "the indexed walk and the naive walk give identical results",
    (rs, dst, port, proto) => {
      const dp = buildDataplane({ ruleSets: [rs], interfaces });
      const packet = { proto, src: "203.0.113.2", dst, dport: port };
      const fast = trace(dp, packet, { indexed: true });
      const slow = trace(dp, packet, { indexed: false });
      expect(fast).toEqual(slow);
    },
  );

  it.prop([...traceArgs], { numRuns: 150, seed: 17 })(
    "the depth-first walk (its table of numbers) and the naive walk agree",
    (rs, dst, port, proto) => {
      const dp = buildDataplane({ ruleSets: [rs], interfaces });
      const packet = { proto, src: "203.0.113.2", dst, dport: port };
      const opts = { explain: false, flowCache: false };
      expect(trace(dp, packet, { ...opts, indexed: true })).toEqual(
        trace(dp, packet, { ...opts, indexed: false }),
      );
    },
  );

  it.prop([ruleSetArb], { numRuns: soakRuns(50, 150), seed: 17 })(
    "the table of numbers gives candidateRules's list for every destination",
    (rs) => {
      const chains = [...compileRuleSet(rs, true).tables.values()].flatMap((t) => [
        ...t.chains.values(),
      ]);
      const tabled = chains.filter((c) => c.index !== undefined && c.index.ports.size === 0);
      fc.pre(tabled.length > 0);
      const probes = [...POOL, "172.30.0.9", "0.0.0.0", "255.255.255.255", "172.30.0.0"];
      for (const c of tabled) {
        const t = destinationTable(c.index!)!;
        for (const text of probes) {
          const ip = parseIP(text, "strict")!;
          const at = candidateList(t, ip.value as number);
          const list = Array.from(t.lists.subarray(at + 1, at + 1 + t.lists[at]!));
          expect(list).toEqual(candidateRules(c, ip, 80));
        }
      }
    },
  );

  it.prop([ruleSetArb])("the index is used for chains of keyed rules", (rs) => {
    const compiled = compileRuleSet(rs, true);
    const services = compiled.tables.get("nat")!.chains.get("SERVICES")!;
    const hostDst = (r: Rule) =>
      r.destination !== undefined && !r.destination.negated && r.destination.value.prefix === 32;
    const keyed = services.rules.filter(
      (r) =>
        hostDst(r) ||
        r.matches.some(
          (m) => (m.module === "tcp" || m.module === "udp") && m.dport?.negated === false,
        ),
    ).length;
    expect(services.index !== undefined).toBe(keyed * 2 >= services.rules.length);
  });

  it.prop([fc.array(fc.constantFrom(...POOL), { minLength: 16, maxLength: 64 })])(
    "candidates are the rules of the bucket merged with the always rules, in rule order",
    (dsts) => {
      const rules = dsts.map((d, i) => rule(ACCEPT, i % 7 === 3 ? {} : { d }));
      const index = buildDestinationIndex(rules);
      if (index === undefined) return;
      const c = {
        table: "nat" as const,
        name: "X",
        rules,
        labels: [],
        index,
        recentSets: [],
        kinds: [],
        jumpTargets: [],
        written: new Map(),
      };
      for (const ip of POOL) {
        const expected = rules.flatMap((r, i) =>
          r.destination === undefined || r.destination.value.network.value === parseIP(ip)!.value
            ? [i]
            : [],
        );
        expect(candidateRules(c, parseIP(ip)!, 80)).toEqual(expected);
      }
    },
  );
});

describe("standard options", () => {
  const cidrs = ["10.0.0.0/8", "10.1.2.3", "192.168.0.0/16", "fd00::/8", "0.0.0.0/0"];
  const ruleOpts = fc.record(
    {
      p: fc.constantFrom("tcp", "udp", "all", "6", "17", "icmp"),
      s: fc.constantFrom(...cidrs),
      notS: fc.constantFrom(...cidrs),
      d: fc.constantFrom(...cidrs),
      i: fc.constantFrom("eth0", "eth+", "lo", "veth+"),
      o: fc.constantFrom("eth1", "eth+", "cbr0"),
    },
    { requiredKeys: [] },
  );
  it.prop([
    ruleOpts,
    fc.constantFrom("10.1.2.3", "192.168.3.4", "8.8.8.8"),
    fc.constantFrom("tcp" as const, "udp" as const),
    fc.constantFrom("eth0", "lo", "veth12", ""),
  ])(
    "the tracer's closure-free check agrees with matches/standard.ts",
    (o, ip, protocol, iface) => {
      const { s, notS, ...rest } = o;
      const r = rule(ACCEPT, {
        ...rest,
        ...(s !== undefined ? { s } : notS !== undefined ? { notS } : {}),
      });
      const packet = {
        family: "IPv4" as const,
        protocol,
        src: parseIP(ip)!,
        sport: 1,
        dst: parseIP("10.9.9.9")!,
        dport: 2,
        inInterface: iface,
        outInterface: "eth1",
        mark: 0,
        connmark: 0,
        ctState: ["NEW" as const],
        fragment: false,
      };
      expect(standardOptionsHold(r, packet)).toBe(ruleMatchesStandard(r, packet));
    },
  );
});

describe("conntrack --ctstate compiled form", () => {
  const STATES = ["NEW", "ESTABLISHED", "RELATED", "INVALID", "UNTRACKED", "SNAT", "DNAT"] as const;
  it.prop([fc.subarray([...STATES], { minLength: 1 }), fc.boolean(), fc.subarray([...STATES])])(
    "agrees with the registry's conntrack evaluation",
    (listed, negated, held) => {
      const m = { module: "conntrack" as const, ctstate: { value: listed, negated } };
      const packet = {
        family: "IPv4" as const,
        protocol: "tcp" as const,
        src: parseIP("10.1.2.3")!,
        sport: 1,
        dst: parseIP("10.9.9.9")!,
        dport: 2,
        inInterface: "eth0",
        outInterface: "",
        mark: 0,
        connmark: 0,
        ctState: held,
        fragment: false,
      };
      const ctx = compileCtx();
      // With a test that always holds, evaluate takes its general path (both tuples).
      const o = evaluateMatch({ ...m, ctdir: "ORIGINAL" }, packet, ctx);
      expect(conntrackMatch.compile!(m)!(packet, ctx)).toBe(o.kind === "match" ? 1 : 0);
    },
  );
  it("leaves other conntrack options to evaluate", () => {
    const m = {
      module: "conntrack" as const,
      ctstate: { value: ["NEW" as const], negated: false },
      ctdir: "REPLY" as const,
    };
    expect(conntrackMatch.compile!(m)).toBeUndefined();
  });
});

function compileCtx() {
  return {
    hook: "FORWARD" as const,
    table: "filter" as const,
    addrType: () => "UNICAST" as const,
    ipsetTest: () => undefined,
    recentSeen: () => false,
    nfacctExists: () => false,
  };
}
