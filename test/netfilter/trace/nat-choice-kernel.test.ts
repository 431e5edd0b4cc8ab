/**
 * natRangeChoice against the real kernel: DNAT and SNAT rules with address ranges (and port
 * ranges, --persistent, --random, --random-fully, DNAT followed by SNAT) are loaded into the
 * node namespace of the client/node/server topology, real TCP and UDP connections are made from
 * several client addresses and ports, and the server address/port each connection reached and
 * the source the server saw must be what natRangeChoice says (a random port: inside its range).
 *
 * The server namespace accepts every address of 10.190.0.0/16 and 2001:db8:190::/48 (a `local`
 * route on lo, "AnyIP") with a wildcard TCP server on ports 8090-8093, so wide ranges can be
 * checked: the server's local address is the one the kernel chose. SNAT ranges lie outside the
 * server's subnet (10.181.0.0/16, 2001:db8:181::/48, or the client's own subnet), so replies go
 * back through the node by the server's default route.
 */
import { afterAll, beforeAll, describe, expect } from "@jest/globals";
import { execFileSync, type ChildProcess } from "node:child_process";
import { kernelTest } from "../../helpers/kernel.js";
import {
  createTraceTopology,
  startServer,
  type TraceTopology,
} from "../../../src/backends/linux/topology.js";
import type { Probe, ProbeResult } from "../../../src/backends/linux/probe-scripts.js";
import { liveNetns } from "../../../src/backends/netns.js";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import type { Target } from "../../../src/netfilter/targets/index.js";
import {
  natRangeChoice,
  type NatChoice,
  type NatTuple,
} from "../../../src/netfilter/trace/nat-choice.js";
import {
  formatIP,
  joinHostPort,
  parseIP,
  type IPAddress,
  type IPFamily,
  type PortRange,
} from "../../../src/net/index.js";

const PREFIX = "kns-nr";
const ANY_PORTS = [8090, 8091, 8092, 8093];

type NatTarget = Extract<Target, { kind: "DNAT" | "SNAT" }>;

interface NatRule {
  readonly chain: "PREROUTING" | "POSTROUTING";
  /** Matches, e.g. `-d 10.96.0.0/24 -p tcp --dport 80`. */
  readonly match: string;
  /** `DNAT --to-destination ...` or `SNAT --to-source ...`. */
  readonly target: string;
}

interface Group {
  readonly name: string;
  readonly proto: "tcp" | "udp";
  readonly rules: readonly NatRule[];
  /** Where the client connects (a VIP for DNAT, a server address for SNAT only). */
  readonly dsts: readonly string[];
  readonly dports: readonly number[];
  /** Source ports to use (one probe per client address, destination, dport and sport). */
  readonly sports: "fresh" | readonly number[];
}

interface FamilySetup {
  readonly family: IPFamily;
  readonly clients: readonly string[];
  readonly groups: readonly Group[];
}

const CLIENTS4 = ["198.51.100.2", ...range(10, 19).map((i) => `198.51.100.${i}`)];
const CLIENTS6 = ["2001:db8:51::2", ...range(10, 19).map((i) => `2001:db8:51::${i}`)];

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

const dnat = (match: string, to: string): NatRule => ({
  chain: "PREROUTING",
  match,
  target: `DNAT --to-destination ${to}`,
});
const snat = (match: string, to: string): NatRule => ({
  chain: "POSTROUTING",
  match: `-o n1 ${match}`,
  target: `SNAT --to-source ${to}`,
});

const IPV4: FamilySetup = {
  family: "IPv4",
  clients: CLIENTS4,
  groups: [
    {
      name: "DNAT to a /16 range",
      proto: "tcp",
      rules: [dnat("-d 10.96.0.0/24 -p tcp --dport 80", "10.190.0.0-10.190.255.255:8090")],
      dsts: range(1, 6).map((i) => `10.96.0.${i}`),
      dports: [80],
      sports: "fresh",
    },
    {
      name: "DNAT UDP to three servers",
      proto: "udp",
      rules: [dnat("-d 10.96.1.0/24 -p udp --dport 8080", "10.180.0.1-10.180.0.3")],
      dsts: range(1, 4).map((i) => `10.96.1.${i}`),
      dports: [8080],
      sports: "fresh",
    },
    {
      name: "DNAT --persistent",
      proto: "tcp",
      rules: [
        dnat("-d 10.96.2.0/24 -p tcp --dport 80", "10.190.2.0-10.190.2.255:8090 --persistent"),
      ],
      dsts: range(1, 3).map((i) => `10.96.2.${i}`),
      dports: [80],
      sports: "fresh",
    },
    {
      name: "DNAT with a port range",
      proto: "tcp",
      rules: [dnat("-d 10.96.3.0/24 -p tcp", "10.190.3.0-10.190.3.200:8090-8093")],
      dsts: ["10.96.3.1", "10.96.3.2"],
      dports: [8091, 8093, 80],
      sports: "fresh",
    },
    {
      name: "DNAT --random",
      proto: "tcp",
      rules: [dnat("-d 10.96.4.0/24 -p tcp --dport 8092", "10.190.4.0-10.190.4.255 --random")],
      dsts: ["10.96.4.1", "10.96.4.2"],
      dports: [8092],
      sports: "fresh",
    },
    {
      name: "SNAT to a /16 range",
      proto: "tcp",
      rules: [snat("-d 10.190.5.0/24 -p tcp", "10.181.0.0-10.181.255.255")],
      dsts: ["10.190.5.1", "10.190.5.77"],
      dports: [8090],
      sports: "fresh",
    },
    {
      name: "SNAT with a port range",
      proto: "tcp",
      rules: [snat("-d 10.190.6.0/24 -p tcp", "10.181.6.0-10.181.6.255:40000-40100")],
      dsts: ["10.190.6.1"],
      dports: [8091],
      sports: [40007, 40100, 30001],
    },
    {
      name: "SNAT whose range holds the source",
      proto: "tcp",
      rules: [snat("-d 10.190.7.0/24 -p tcp", "198.51.100.0-198.51.100.100")],
      dsts: ["10.190.7.1"],
      dports: [8090],
      sports: "fresh",
    },
    {
      name: "SNAT --random / --random-fully",
      proto: "tcp",
      rules: [
        snat("-d 10.190.8.0/25 -p tcp", "198.51.100.0-198.51.100.100 --random"),
        snat("-d 10.190.8.128/25 -p tcp", "198.51.100.0-198.51.100.100 --random-fully"),
      ],
      dsts: ["10.190.8.1", "10.190.8.200"],
      dports: [8090],
      sports: "fresh",
    },
    {
      name: "DNAT --random with a port range",
      proto: "tcp",
      rules: [dnat("-d 10.96.10.0/24 -p tcp", "10.190.10.0-10.190.10.255:8090-8093 --random")],
      dsts: ["10.96.10.1", "10.96.10.2"],
      dports: [8091],
      sports: "fresh",
    },
    {
      name: "SNAT whose range holds the source address, with a port range",
      proto: "tcp",
      rules: [snat("-d 10.190.11.0/24 -p tcp", "198.51.100.0-198.51.100.100:30000-30999")],
      dsts: ["10.190.11.1"],
      dports: [8090],
      // In the range: nothing changes.
      sports: [30500],
    },
    {
      // Apart from the case above (another destination): a random port in 30000-30999 on a
      // hashed address could otherwise take an in-range client's own tuple first, and the
      // kernel would then have to remap that client.
      name: "SNAT with a port range, from a source port outside it",
      proto: "tcp",
      rules: [snat("-d 10.190.12.0/24 -p tcp", "198.51.100.0-198.51.100.100:30000-30999")],
      dsts: ["10.190.12.1"],
      dports: [8090],
      // Outside the range: a hashed address and a random port.
      sports: [29999],
    },
    {
      name: "DNAT then SNAT",
      proto: "tcp",
      rules: [
        dnat("-d 10.96.9.0/24 -p tcp --dport 80", "10.190.9.0-10.190.9.255:8092"),
        snat("-d 10.190.9.0/24 -p tcp", "10.181.9.0-10.181.9.255"),
      ],
      dsts: ["10.96.9.1", "10.96.9.2", "10.96.9.3"],
      dports: [80],
      sports: "fresh",
    },
  ],
};

const IPV6: FamilySetup = {
  family: "IPv6",
  clients: CLIENTS6,
  groups: [
    {
      name: "DNAT to a range within the last word",
      proto: "tcp",
      rules: [
        dnat("-d 2001:db8:96::/112 -p tcp --dport 80", "[2001:db8:190::-2001:db8:190::ffff]:8090"),
      ],
      dsts: range(1, 4).map((i) => `2001:db8:96::${i}`),
      dports: [80],
      sports: "fresh",
    },
    {
      name: "DNAT to a range across the third word",
      proto: "tcp",
      rules: [
        dnat(
          "-d 2001:db8:96::1:0/112 -p tcp --dport 80",
          "[2001:db8:190::ffff:ffff:0-2001:db8:190::1:0:0:ffff]:8090",
        ),
      ],
      dsts: range(1, 4).map((i) => `2001:db8:96::1:${i}`),
      dports: [80],
      sports: "fresh",
    },
    {
      name: "DNAT to a range across the second word",
      proto: "tcp",
      rules: [
        dnat(
          "-d 2001:db8:96::2:0/112 -p tcp --dport 80",
          "[2001:db8:190:1::-2001:db8:190:2::ffff]:8091",
        ),
      ],
      dsts: range(1, 3).map((i) => `2001:db8:96::2:${i}`),
      dports: [80],
      sports: "fresh",
    },
    {
      name: "DNAT UDP to three servers",
      proto: "udp",
      rules: [
        dnat("-d 2001:db8:96::3:0/112 -p udp --dport 8080", "2001:db8:180::1-2001:db8:180::3"),
      ],
      dsts: range(1, 4).map((i) => `2001:db8:96::3:${i}`),
      dports: [8080],
      sports: "fresh",
    },
    {
      name: "DNAT --persistent",
      proto: "tcp",
      rules: [
        dnat(
          "-d 2001:db8:96::4:0/112 -p tcp --dport 80",
          "[2001:db8:190:4::-2001:db8:190:5::ffff]:8090 --persistent",
        ),
      ],
      dsts: range(1, 3).map((i) => `2001:db8:96::4:${i}`),
      dports: [80],
      sports: "fresh",
    },
    {
      name: "DNAT with a port range",
      proto: "tcp",
      rules: [
        dnat("-d 2001:db8:96::5:0/112 -p tcp", "[2001:db8:190::5:0-2001:db8:190::5:ff]:8090-8093"),
      ],
      dsts: ["2001:db8:96::5:1"],
      dports: [8092, 80],
      sports: "fresh",
    },
    {
      name: "DNAT --random",
      proto: "tcp",
      rules: [
        dnat(
          "-d 2001:db8:96::6:0/112 -p tcp --dport 8093",
          "2001:db8:190::6:0-2001:db8:190::6:ff --random",
        ),
      ],
      dsts: ["2001:db8:96::6:1"],
      dports: [8093],
      sports: "fresh",
    },
    {
      name: "SNAT to a range across the third word",
      proto: "tcp",
      rules: [
        snat("-d 2001:db8:190:7::/64 -p tcp", "2001:db8:181::ffff:ffff:0-2001:db8:181::1:0:0:ffff"),
      ],
      dsts: ["2001:db8:190:7::1", "2001:db8:190:7::99"],
      dports: [8090],
      sports: "fresh",
    },
    {
      name: "SNAT with a port range",
      proto: "tcp",
      rules: [
        snat("-d 2001:db8:190:8::/64 -p tcp", "[2001:db8:181:8::-2001:db8:181:8::ff]:40000-40100"),
      ],
      dsts: ["2001:db8:190:8::1"],
      dports: [8091],
      sports: [40011, 40000, 30002],
    },
    {
      name: "SNAT whose range holds the source",
      proto: "tcp",
      rules: [snat("-d 2001:db8:190:9::/64 -p tcp", "2001:db8:51::-2001:db8:51::ff")],
      dsts: ["2001:db8:190:9::1"],
      dports: [8090],
      sports: "fresh",
    },
    {
      name: "SNAT --random / --random-fully",
      proto: "tcp",
      rules: [
        snat("-d 2001:db8:190:a::/64 -p tcp", "2001:db8:51::-2001:db8:51::ff --random"),
        snat("-d 2001:db8:190:b::/64 -p tcp", "2001:db8:51::-2001:db8:51::ff --random-fully"),
      ],
      dsts: ["2001:db8:190:a::1", "2001:db8:190:b::1"],
      dports: [8090],
      sports: "fresh",
    },
    {
      name: "SNAT --random-fully with a port range",
      proto: "tcp",
      rules: [
        snat(
          "-d 2001:db8:190:d::/64 -p tcp",
          "[2001:db8:181:d::-2001:db8:181:d::ff]:40000-40100 --random-fully",
        ),
      ],
      dsts: ["2001:db8:190:d::1"],
      dports: [8090],
      // In the range, and still random: --random-fully skips the "keep it" shortcut.
      sports: [40050],
    },
    {
      name: "DNAT then SNAT",
      proto: "tcp",
      rules: [
        dnat(
          "-d 2001:db8:96::c:0/112 -p tcp --dport 80",
          "[2001:db8:190:c::-2001:db8:190:c::ffff]:8092",
        ),
        snat("-d 2001:db8:190:c::/64 -p tcp", "2001:db8:181:c::-2001:db8:181:c::ffff"),
      ],
      dsts: range(1, 3).map((i) => `2001:db8:96::c:${i}`),
      dports: [80],
      sports: "fresh",
    },
  ],
};

/** The parsed target of one rule, through the project's own iptables parser. */
function parseTarget(family: IPFamily, rule: NatRule): NatTarget {
  const rs = parseIptables(`*nat\n-A ${rule.chain} ${rule.match} -j ${rule.target}\nCOMMIT\n`, {
    family,
  });
  const t = rs.tables[0]?.chains.find((c) => c.name === rule.chain)?.rules[0]?.target;
  if (t?.kind !== "DNAT" && t?.kind !== "SNAT") throw new Error(`no NAT target: ${rule.target}`);
  return t;
}

function restoreText(setup: FamilySetup): string {
  const lines = ["*nat"];
  for (const g of setup.groups)
    for (const r of g.rules) lines.push(`-A ${r.chain} ${r.match} -j ${r.target}`);
  lines.push("COMMIT", "");
  return lines.join("\n");
}

/** Does the rule's match (`-d`, `-p`, `--dport`; `-o n1` always holds) apply to the packet? */
function ruleApplies(rule: NatRule, t: NatTuple): boolean {
  const m = /-d (\S+)\/(\d+)/.exec(rule.match);
  if (m === null) throw new Error(`rule without -d: ${rule.match}`);
  const net = parseIP(m[1]!)!;
  const bits = t.dst.family === "IPv4" ? 32 : 128;
  const shift = BigInt(bits - Number(m[2]));
  if (BigInt(net.value) >> shift !== BigInt(t.dst.value) >> shift) return false;
  if (!rule.match.includes(`-p ${t.protocol}`)) return false;
  const dport = /--dport (\d+)/.exec(rule.match);
  return dport === null || Number(dport[1]) === t.dport;
}

type Side = { readonly ip: IPAddress; readonly port: number | PortRange };

interface Expectation {
  readonly probe: Probe;
  readonly group: string;
  readonly server: Side;
  readonly seenSource: Side;
  /** With a DNAT: what "the first address of the range" (the old model) says the server is. */
  readonly naive?: IPAddress;
}

function expectProbe(setup: FamilySetup, group: Group, probe: Probe): Expectation {
  let tuple: NatTuple = {
    protocol: probe.proto,
    src: parseIP(probe.src!)!,
    sport: probe.sport,
    dst: parseIP(probe.dst)!,
    dport: probe.dport,
  };
  let server: Side = { ip: tuple.dst, port: tuple.dport };
  let seenSource: Side = { ip: tuple.src, port: tuple.sport };
  let naive: IPAddress | undefined;
  for (const chain of ["PREROUTING", "POSTROUTING"] as const) {
    // Every rule of the family, in order: a wide DNAT range may land in another group's SNAT.
    const rules = setup.groups.flatMap((g) => g.rules);
    const rule = rules.find((r) => r.chain === chain && ruleApplies(r, tuple));
    if (rule === undefined) continue;
    const t = parseTarget(setup.family, rule);
    const manip = t.kind === "DNAT" ? "dst" : "src";
    const choice: NatChoice = natRangeChoice(t.to, tuple, manip, {
      persistent: t.persistent,
      random: t.random,
      randomFully: t.kind === "SNAT" && t.randomFully,
    });
    const port = choice.kind === "exact" ? choice.port : choice.ports;
    if (manip === "dst") {
      server = { ip: choice.ip, port };
      naive = t.to.ipFrom ?? tuple.dst;
      if (typeof port === "number") tuple = { ...tuple, dst: choice.ip, dport: port };
    } else {
      seenSource = { ip: choice.ip, port };
      if (typeof port === "number") tuple = { ...tuple, src: choice.ip, sport: port };
    }
  }
  const e = { probe, group: group.name, server, seenSource };
  return naive === undefined ? e : { ...e, naive };
}

function probesOf(setup: FamilySetup, firstSport: number): Expectation[] {
  let sport = firstSport;
  const out: Expectation[] = [];
  for (const g of setup.groups)
    for (const src of setup.clients)
      for (const dst of g.dsts)
        for (const dport of g.dports)
          for (const sp of g.sports === "fresh" ? [sport++] : g.sports)
            out.push(expectProbe(setup, g, { proto: g.proto, src, sport: sp, dst, dport }));
  return out;
}

/** `10.0.0.1:80`, `[2001:db8::1]:80` or `[::ffff:10.0.0.1]:80` (a dual-stack socket). */
function parseHostPort(s: string): { ip: IPAddress; port: number } {
  const colon = s.lastIndexOf(":");
  const host = s.slice(0, colon).replace(/^\[|\]$/g, "");
  const ip = parseIP(host, "lenient");
  if (ip === undefined) throw new Error(`bad address in server reply: ${s}`);
  return { ip, port: Number(s.slice(colon + 1)) };
}

function sideText(s: Side): string {
  return typeof s.port === "number"
    ? joinHostPort(formatIP(s.ip), s.port)
    : `${joinHostPort(formatIP(s.ip), s.port.from)}..${s.port.to}`;
}

function sideMatches(want: Side, got: { ip: IPAddress; port: number }): boolean {
  if (want.ip.value !== got.ip.value) return false;
  return typeof want.port === "number"
    ? want.port === got.port
    : got.port >= want.port.from && got.port <= want.port.to;
}

/** Mismatches as readable lines (empty when the kernel agrees on every probe). */
function compare(exps: readonly Expectation[], results: readonly ProbeResult[]): string[] {
  const bad: string[] = [];
  exps.forEach((e, i) => {
    const r = results[i]!;
    const p = e.probe;
    const what = `${e.group}: ${p.proto} ${joinHostPort(p.src!, p.sport)} -> ${joinHostPort(p.dst, p.dport)}`;
    if (r.kind !== "reached") {
      bad.push(`${what}: ${JSON.stringify(r)}`);
      return;
    }
    const local = parseHostPort(r.reply.local);
    const remote = parseHostPort(r.reply.remote);
    if (!sideMatches(e.server, local) || !sideMatches(e.seenSource, remote))
      bad.push(
        `${what}: kernel ${r.reply.remote} -> ${r.reply.local}, ` +
          `natRangeChoice ${sideText(e.seenSource)} -> ${sideText(e.server)}`,
      );
  });
  return bad;
}

describe("natRangeChoice vs the Linux kernel", () => {
  let topo: TraceTopology | undefined;
  let anyServer: ChildProcess | undefined;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) return;
    topo = await createTraceTopology(PREFIX);
    const { client, node, server } = topo;
    const ip = (ns: string, ...args: string[]): void => {
      execFileSync("ip", ["-n", ns, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    };
    for (const a of CLIENTS4.slice(1)) ip(client.name, "addr", "add", `${a}/24`, "dev", "eth0");
    for (const a of CLIENTS6.slice(1))
      ip(client.name, "addr", "add", `${a}/64`, "dev", "eth0", "nodad");
    ip(server.name, "route", "add", "local", "10.190.0.0/16", "dev", "lo");
    ip(server.name, "-6", "route", "add", "local", "2001:db8:190::/48", "dev", "lo");
    ip(node.name, "route", "add", "10.190.0.0/16", "via", "10.180.0.1");
    ip(node.name, "-6", "route", "add", "2001:db8:190::/48", "via", "2001:db8:180::1");
    // One dual-stack wildcard socket per port: IPv4 peers show as ::ffff:a.b.c.d.
    anyServer = await startServer(server, "any", ["::"], ANY_PORTS);
  }, 30_000);

  afterAll(() => {
    if (anyServer?.exitCode === null) anyServer.kill("SIGKILL");
    topo?.close();
    expect(liveNetns().filter((n) => n.startsWith(PREFIX))).toEqual([]);
  });

  for (const [setup, firstSport] of [
    [IPV4, 20000],
    [IPV6, 21000],
  ] as const) {
    kernelTest(
      `${setup.family}: every connection reaches the address and port natRangeChoice picks`,
      ["root", "ip", "iptables", "ip6tables"],
      async () => {
        const t = topo!;
        t.loadRules(restoreText(setup), setup.family);
        const exps = probesOf(setup, firstSport);
        const results = await t.probe(
          exps.map((e) => e.probe),
          3_000,
        );
        expect(compare(exps, results)).toEqual([]);
        // Teeth: the probes spread over many addresses, and "always the first address of the
        // range" (the old model) would have been wrong for most of them.
        const dnats = exps.filter((e) => e.naive !== undefined);
        const naiveRight = dnats.filter((e) => e.naive?.value === e.server.ip.value).length;
        expect(naiveRight).toBeLessThan(dnats.length / 4);
        // Where natRangeChoice says "random port", the kernel really varies it (it does not
        // take, say, the first port of the range): per group and side, several ports are seen.
        const randomPorts = new Map<string, number[]>();
        exps.forEach((e, i) => {
          const r = results[i]!;
          if (r.kind !== "reached") return;
          const sides = [
            ["server", e.server, r.reply.local],
            ["source", e.seenSource, r.reply.remote],
          ] as const;
          for (const [side, want, got] of sides) {
            if (typeof want.port === "number") continue;
            const key = `${e.group} ${side}`;
            const seen = randomPorts.get(key) ?? [];
            randomPorts.set(key, [...seen, parseHostPort(got).port]);
          }
        });
        expect([...randomPorts.keys()].some((k) => k.includes("source"))).toBe(true);
        for (const [key, ports] of randomPorts)
          if (ports.length >= 5) expect([key, new Set(ports).size > 1]).toEqual([key, true]);
      },
      60_000,
    );
  }
});
