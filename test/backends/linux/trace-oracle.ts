/**
 * The kernel as the tracer's oracle, for one IP family: random DNAT/REJECT/DROP/ACCEPT/MARK/
 * MASQUERADE rule sets for the node of the client/node/server topology, the probes to make,
 * and what the tracer's outcome means for a real TCP or UDP socket on the client (which server
 * address and port answered and the source it saw; refused; timed out; unreachable; another
 * socket error). statistic is used only with probability 0 or 1, so each packet has one outcome.
 * Shared by trace-kernel.test.ts (IPv4) and trace-kernel-ipv6.test.ts (IPv6).
 */
import { afterAll, beforeAll, describe, expect } from "@jest/globals";
import { kernelTest } from "../../helpers/kernel.js";
import { soakRuns } from "../../helpers/soak.js";
import { liveNetns } from "../../../src/backends/netns.js";
import fc from "fast-check";
import {
  TOPOLOGY_BY_FAMILY,
  type FamilyAddresses,
  createTraceTopology,
  type TraceTopology,
} from "../../../src/backends/linux/topology.js";
import type { Probe, ProbeResult } from "../../../src/backends/linux/probe-scripts.js";
import { parseIptables } from "../../../src/netfilter/parse/iptables.js";
import type { RuleSet } from "../../../src/netfilter/model.js";
import { defaultRejectWith } from "../../../src/netfilter/targets/reject.js";
import {
  buildDataplane,
  trace,
  traceEstablished,
  type NodeDataplane,
  type TraceResult,
} from "../../../src/netfilter/trace/index.js";
import {
  cidrContains,
  joinHostPort,
  parseCIDR,
  parseIP,
  type IPFamily,
} from "../../../src/net/index.js";

/**
 * What a client socket sees for an ICMP error, per `--reject-with` type: the errno (from the
 * kernel's icmp_err_convert table, net/ipv4/icmp.c, and tab_unreach, net/ipv6/icmp.c) and
 * whether it is "fatal". A connecting TCP socket (SYN_SENT) is aborted by any of them; a
 * connected UDP socket without IP_RECVERR reports only the fatal ones and otherwise waits.
 */
const REJECT_ERRORS: Readonly<Record<string, { readonly code: string; readonly fatal: boolean }>> =
  {
    "icmp-port-unreachable": { code: "ECONNREFUSED", fatal: true },
    "icmp-admin-prohibited": { code: "EHOSTUNREACH", fatal: true },
    "icmp-host-unreachable": { code: "EHOSTUNREACH", fatal: false },
    "icmp-net-unreachable": { code: "ENETUNREACH", fatal: false },
    "icmp6-port-unreachable": { code: "ECONNREFUSED", fatal: true },
    "icmp6-adm-prohibited": { code: "EACCES", fatal: true },
    "icmp6-addr-unreachable": { code: "EHOSTUNREACH", fatal: false },
    "icmp6-no-route": { code: "ENETUNREACH", fatal: false },
    "tcp-reset": { code: "ECONNREFUSED", fatal: true },
  };

export interface FamilyCase {
  readonly family: IPFamily;
  readonly addrs: FamilyAddresses;
  /** A service address nothing holds: reached only through DNAT. */
  readonly vip: string;
  /** An address the node has no route to. */
  readonly outside: string;
  /** `--reject-with` types the random filter rules use ("" for none written: the default). */
  readonly rejectWith: readonly string[];
  /**
   * `--reject-with` types for the fixed rule set checked before the random ones, so that every
   * kind of socket error is seen: [UDP to the VIP (DNAT), UDP to servers[0], TCP to servers[1],
   * TCP to the node's client-side address, UDP to it, UDP to the node's server-side address].
   */
  readonly fixedRejects: readonly [string, string, string, string, string, string];
  /** Fixed rules at the head of filter INPUT (IPv6: neighbour discovery must get through). */
  readonly inputPrelude: readonly string[];
  readonly probeTimeoutMs: number;
  /**
   * The kernel may report "unreachable" as a timeout (a TCP socket that was busy in connect()
   * when the ICMP error arrived keeps it as a soft error until the SYN is retransmitted, 1 s on).
   */
  readonly unreachableMayTimeOut: boolean;
}

export const IPV4_CASE: FamilyCase = {
  family: "IPv4",
  addrs: TOPOLOGY_BY_FAMILY.IPv4,
  vip: "172.30.0.1",
  outside: "8.8.8.8",
  rejectWith: ["", "", "icmp-port-unreachable", "tcp-reset", "icmp-admin-prohibited"],
  fixedRejects: [
    "icmp-admin-prohibited",
    "icmp-host-unreachable",
    "icmp-admin-prohibited",
    "icmp-host-unreachable",
    "icmp-port-unreachable",
    "icmp-net-unreachable",
  ],
  inputPrelude: [],
  probeTimeoutMs: 600,
  unreachableMayTimeOut: true,
};

export const IPV6_CASE: FamilyCase = {
  family: "IPv6",
  addrs: TOPOLOGY_BY_FAMILY.IPv6,
  vip: "fd00:30::1",
  outside: "2001:db8:99::1",
  rejectWith: [
    "",
    "",
    "icmp6-port-unreachable",
    "tcp-reset",
    "icmp6-adm-prohibited",
    "icmp6-addr-unreachable",
  ],
  fixedRejects: [
    "icmp6-adm-prohibited",
    "icmp6-addr-unreachable",
    "icmp6-adm-prohibited",
    "icmp6-addr-unreachable",
    "icmp6-port-unreachable",
    "icmp6-no-route",
  ],
  // Unlike ARP, neighbour solicitations and advertisements are IPv6 packets that filter INPUT
  // sees: a client-sourced DROP/REJECT rule would otherwise cut the client off the node.
  inputPrelude: ["-A INPUT -p ipv6-icmp -j ACCEPT"],
  // The first ICMPv6 error for a SYN arrives while connect() still owns the socket, so TCP
  // reports it only after the retransmission (about 1 s on); wait for that.
  probeTimeoutMs: 1_600,
  unreachableMayTimeOut: false,
};

const PROTOS = ["tcp", "udp"] as const;

function hostBits(c: FamilyCase): number {
  return c.family === "IPv4" ? 32 : 128;
}

export function ruleSetText(c: FamilyCase): fc.Arbitrary<string> {
  const { client, servers, nodeClientSide, nodeServerSide } = c.addrs;
  const host = (a: string): string => `${a}/${hostBits(c)}`;
  const nodeAddrs = [nodeClientSide, nodeServerSide];
  const proto = fc.constantFrom(...PROTOS);
  const port = fc.constantFrom(80, 8080, 8081);
  const dest = fc.constantFrom(c.vip, servers[0], servers[1], nodeClientSide);
  const dnatTo = fc.tuple(fc.constantFrom(...servers, nodeServerSide), fc.constantFrom(8080, 8081));
  const stat = fc.option(fc.constantFrom("0", "1"), { freq: 3 });
  const mark = fc.option(fc.constantFrom("0x1/0x1", "0x2/0x2"), { freq: 2 });

  const protoPortPair = fc.option(fc.tuple(proto, port), { freq: 3 });
  const protoPortText = (pp: readonly [string, number] | null): string =>
    pp === null ? "" : ` -p ${pp[0]} -m ${pp[0]} --dport ${pp[1]}`;
  // DNAT to a port needs a protocol: nat rules always name one.
  const protoMaybePort = fc
    .tuple(proto, fc.option(port, { freq: 3 }))
    .map(([pr, pt]) => ` -p ${pr}${pt === null ? "" : ` -m ${pr} --dport ${pt}`}`);
  const statText = stat.map((s) =>
    s === null ? "" : ` -m statistic --mode random --probability ${s}`,
  );
  const markText = mark.map((m) => (m === null ? "" : ` -m mark --mark ${m}`));

  const natRule = (chainName: string): fc.Arbitrary<string> =>
    fc
      .tuple(
        fc.option(dest, { freq: 4 }),
        protoMaybePort,
        markText,
        statText,
        fc.oneof(
          {
            weight: 4,
            arbitrary: dnatTo.map(([ip, p]) => `DNAT --to-destination ${joinHostPort(ip, p)}`),
          },
          { weight: 1, arbitrary: fc.constant("ACCEPT") },
          { weight: 1, arbitrary: fc.constant("RETURN") },
          ...(chainName === "PREROUTING" ? [{ weight: 2, arbitrary: fc.constant("SVC") }] : []),
        ),
      )
      .map(
        ([d, pp, m, s, t]) =>
          `-A ${chainName}${d === null ? "" : ` -d ${host(d)}`}${pp}${m}${s} -j ${t}`,
      );

  const filterTarget = (pp: readonly [string, number] | null, w: string): string => {
    // tcp-reset is valid only in a rule for -p tcp; elsewhere the default type.
    const type = w === "tcp-reset" && pp?.[0] !== "tcp" ? "" : w;
    return type === "" ? "REJECT" : `REJECT --reject-with ${type}`;
  };
  const filterRule = (chainName: string, dsts: readonly string[]): fc.Arbitrary<string> =>
    fc
      .tuple(
        fc.option(fc.constantFrom(...dsts), { freq: 2 }),
        protoPortPair,
        markText,
        statText,
        fc.constantFrom("DROP", "REJECT", "REJECT", "ACCEPT"),
        fc.constantFrom(...c.rejectWith),
      )
      // Every filter rule names the client as source, so replies are never caught by it.
      .map(
        ([d, pp, m, s, t, w]) =>
          `-A ${chainName} -s ${host(client)}${d === null ? "" : ` -d ${host(d)}`}` +
          `${protoPortText(pp)}${m}${s} -j ${t === "REJECT" ? filterTarget(pp, w) : t}`,
      );

  return fc
    .record({
      mangle: fc.array(
        fc
          .tuple(protoPortPair, fc.constantFrom("0x1", "0x2", "0x3"))
          .map(
            ([pp, v]) =>
              `-A PREROUTING -s ${host(client)}${protoPortText(pp)} -j MARK --set-xmark ${v}/0xffffffff`,
          ),
        { maxLength: 2 },
      ),
      pre: fc.array(natRule("PREROUTING"), { maxLength: 5 }),
      svc: fc.array(natRule("SVC"), { maxLength: 3 }),
      post: fc.array(
        fc
          .constantFrom(
            ` -m mark --mark 0x2/0x2`,
            ` -d ${host(servers[2])}`,
            ` -d ${host(servers[0])}`,
            "",
          )
          .map((cond) => `-A POSTROUTING${cond} -j MASQUERADE`),
        { maxLength: 2 },
      ),
      forward: fc.array(filterRule("FORWARD", servers), { maxLength: 3 }),
      input: fc.array(filterRule("INPUT", nodeAddrs), { maxLength: 2 }),
      forwardPolicy: fc.constantFrom("ACCEPT", "ACCEPT", "DROP"),
    })
    .map((r) =>
      [
        "*mangle",
        ":PREROUTING ACCEPT [0:0]",
        ...r.mangle,
        "COMMIT",
        "*nat",
        ":PREROUTING ACCEPT [0:0]",
        ":INPUT ACCEPT [0:0]",
        ":OUTPUT ACCEPT [0:0]",
        ":POSTROUTING ACCEPT [0:0]",
        ":SVC - [0:0]",
        ...r.pre,
        ...r.svc,
        ...r.post,
        "COMMIT",
        "*filter",
        ":INPUT ACCEPT [0:0]",
        `:FORWARD ${r.forwardPolicy} [0:0]`,
        ":OUTPUT ACCEPT [0:0]",
        ...c.inputPrelude,
        ...r.forward,
        ...r.input,
        "COMMIT",
        "",
      ].join("\n"),
    );
}

/**
 * A rule set with one REJECT of each kind of socket error on the probed paths (see
 * `fixedRejects`), a DNAT'd and masqueraded TCP service, a tcp-reset, a default REJECT, and an
 * untouched local service.
 */
export function fixedRuleSet(c: FamilyCase): string {
  const { client, servers, nodeClientSide, nodeServerSide } = c.addrs;
  const host = (a: string): string => `${a}/${hostBits(c)}`;
  const [udpVip, udpS0, tcpS1, tcpNc, udpNc, udpNs] = c.fixedRejects;
  const from = `-s ${host(client)}`;
  return [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":INPUT ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
    `-A PREROUTING -d ${host(c.vip)} -p tcp -m tcp --dport 80 -j DNAT --to-destination ${joinHostPort(servers[2], 8080)}`,
    `-A PREROUTING -d ${host(c.vip)} -p udp -j DNAT --to-destination ${joinHostPort(servers[0], 8081)}`,
    `-A POSTROUTING -d ${host(servers[2])} -j MASQUERADE`,
    "COMMIT",
    "*filter",
    ":INPUT ACCEPT [0:0]",
    ":FORWARD ACCEPT [0:0]",
    ":OUTPUT ACCEPT [0:0]",
    ...c.inputPrelude,
    `-A FORWARD ${from} -d ${host(servers[0])} -p udp -m udp --dport 8081 -j REJECT --reject-with ${udpVip}`,
    `-A FORWARD ${from} -d ${host(servers[0])} -p tcp -m tcp --dport 8080 -j REJECT --reject-with tcp-reset`,
    `-A FORWARD ${from} -d ${host(servers[0])} -p udp -j REJECT --reject-with ${udpS0}`,
    `-A FORWARD ${from} -d ${host(servers[1])} -p tcp -j REJECT --reject-with ${tcpS1}`,
    `-A FORWARD ${from} -d ${host(servers[1])} -p udp -j REJECT`,
    `-A INPUT ${from} -d ${host(nodeClientSide)} -p tcp -j REJECT --reject-with ${tcpNc}`,
    `-A INPUT ${from} -d ${host(nodeClientSide)} -p udp -j REJECT --reject-with ${udpNc}`,
    `-A INPUT ${from} -d ${host(nodeServerSide)} -p udp -j REJECT --reject-with ${udpNs}`,
    "COMMIT",
    "",
  ].join("\n");
}

export function probeTargets(c: FamilyCase): readonly (readonly [string, number])[] {
  const a = c.addrs;
  return [
    [c.vip, 80],
    [a.servers[0], 8080],
    [a.servers[1], 8081],
    [a.nodeClientSide, 8080],
    [a.nodeServerSide, 8080],
    [c.outside, 80],
  ];
}

export type Expected =
  | { kind: "reached"; ns: string; local: string; remoteIp: string }
  | { kind: "refused" }
  | { kind: "timeout" }
  | { kind: "unreachable" }
  | { kind: "error"; code: string };

function splitHostPort(s: string): readonly [string, number] {
  const colon = s.lastIndexOf(":");
  const host = s.slice(0, colon);
  return [host.startsWith("[") ? host.slice(1, -1) : host, Number(s.slice(colon + 1))];
}

/** The REJECT rule an outcome stopped at: the last rule on its path (`table/CHAIN#n`). */
function rejectWithOf(ruleSet: RuleSet, path: readonly string[]): string {
  const [, table, chain, index] = /^(\w+)\/(.+)#(\d+)$/.exec(path[path.length - 1] ?? "") ?? [];
  const rule = ruleSet.tables.find((t) => t.name === table)?.chains.find((ch) => ch.name === chain)
    ?.rules[Number(index) - 1];
  const target = rule?.target;
  if (target?.kind !== "REJECT")
    throw new Error(`REJECT outcome not at a REJECT rule: ${path.join(" ")}`);
  return target.rejectWith ?? defaultRejectWith(ruleSet.family);
}

function socketError(code: string, fatal: boolean, proto: string): Expected {
  if (proto === "udp" && !fatal) return { kind: "timeout" };
  if (code === "ECONNREFUSED") return { kind: "refused" };
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return { kind: "unreachable" };
  return { kind: "error", code };
}

export function expectedOf(
  c: FamilyCase,
  r: TraceResult,
  dp: NodeDataplane,
  ruleSet: RuleSet,
): Expected {
  const a = c.addrs;
  const nodeAddrs = [a.nodeClientSide, a.nodeServerSide];
  const connected = [
    parseCIDR(`${a.client}/${a.clientPrefix}`)!,
    parseCIDR(`${a.servers[0]}/${a.serverPrefix}`)!,
  ];
  expect(r.outcomes).toHaveLength(1);
  const o = r.outcomes[0]!;
  const [ip, p] = splitHostPort(o.destination ?? joinHostPort(r.packet.dst, r.packet.dport));
  // The tracer assumes every destination is routable (a node has a default route); this
  // node has none, so the kernel answers "net unreachable" at the routing decision, before
  // FORWARD. The rules here cannot stop a packet before routing.
  const local = nodeAddrs.includes(ip);
  // UDP sockets do not report net unreachable (a non-fatal ICMP error) without IP_RECVERR.
  if (!local && !connected.some((n) => cidrContains(n, parseIP(ip)!)))
    return r.packet.proto === "tcp" ? { kind: "unreachable" } : { kind: "timeout" };
  // The rest of the connection: later packets of the client and the server's replies must get
  // through too (e.g. a FORWARD DROP policy with an ACCEPT only for the client's marked packets).
  if (o.conntrack !== undefined && o.delivery !== "stopped") {
    for (const direction of ["original", "reply"] as const) {
      const later = traceEstablished(dp, o.conntrack, direction);
      expect(later.outcomes).toHaveLength(1);
      if (later.outcomes[0]!.verdict === "DROP") return { kind: "timeout" };
    }
  }

  if (o.verdict === "DROP") return { kind: "timeout" };
  if (o.verdict === "REJECT") {
    const w = rejectWithOf(ruleSet, o.path);
    const e = REJECT_ERRORS[w];
    if (e === undefined) throw new Error(`no socket error known for --reject-with ${w}`);
    return socketError(e.code, e.fatal, r.packet.proto);
  }
  const remoteIp = o.source !== undefined ? splitHostPort(o.source)[0] : a.client;
  const dest = joinHostPort(ip, p);
  const listening = a.listenPorts.includes(p);
  if (o.delivery === "local")
    return listening ? { kind: "reached", ns: "node", local: dest, remoteIp } : { kind: "refused" };
  if (a.servers.includes(ip))
    return listening
      ? { kind: "reached", ns: "server", local: dest, remoteIp }
      : { kind: "refused" };
  // A connected address nobody holds: address resolution fails, the client times out.
  return { kind: "timeout" };
}

export function observed(p: ProbeResult): Expected {
  switch (p.kind) {
    case "reached":
      return {
        kind: "reached",
        ns: p.reply.ns,
        local: p.reply.local,
        remoteIp: splitHostPort(p.reply.remote)[0],
      };
    case "unreachable":
      return { kind: "unreachable" };
    default:
      return p;
  }
}

/**
 * Loads the fixed rule set, then `numRuns` random ones, into the node one after another and
 * makes every probe (each target, TCP and UDP) for each; throws with the rule set on the first
 * disagreement. Returns how many probes ended in each way (for coverage checks).
 */
export async function checkAgainstKernel(
  topo: TraceTopology,
  c: FamilyCase,
  opts: { readonly numRuns: number; readonly seed: number; readonly firstSport: number },
): Promise<ReadonlyMap<string, number>> {
  let sport = opts.firstSport;
  const client = c.addrs.client;
  const seen = new Map<string, number>();
  const runs = fc.sample(ruleSetText(c), { numRuns: opts.numRuns, seed: opts.seed });
  for (const text of [fixedRuleSet(c), ...runs]) {
    topo.loadRules(text, c.family);
    const ruleSet = parseIptables(text, { file: "random.rules", family: c.family });
    const dp = buildDataplane({
      ruleSets: [ruleSet],
      interfaces: topo.nodeInterfaces,
      defaultInterface: "n0",
    });
    const probes: Probe[] = [];
    for (const [dst, dport] of probeTargets(c))
      for (const p of PROTOS) probes.push({ proto: p, sport: sport++, dst, dport });
    const results = await topo.probe(probes, c.probeTimeoutMs);
    probes.forEach((p, i) => {
      const traced = trace(dp, {
        proto: p.proto,
        src: client,
        sport: p.sport,
        dst: p.dst,
        dport: p.dport,
      });
      const want = expectedOf(c, traced, dp, ruleSet);
      const got = observed(results[i]!);
      const agree =
        JSON.stringify(got) === JSON.stringify(want) ||
        (c.unreachableMayTimeOut && want.kind === "unreachable" && got.kind === "timeout");
      if (!agree)
        throw new Error(
          `kernel and tracer disagree for ${p.proto} ${joinHostPort(client, p.sport)} -> ${joinHostPort(p.dst, p.dport)}\n` +
            `kernel: ${JSON.stringify(got)}\ntracer: ${JSON.stringify(want)} via ${traced.outcomes[0]?.path.join(" ")}\nrules:\n${text}`,
        );
      const key = outcomeKey(c, got);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    });
  }
  return seen;
}

/** `reached-node`, `reached-server`, `reached-server-masqueraded`, `refused`, `error-EACCES`, ... */
function outcomeKey(c: FamilyCase, e: Expected): string {
  switch (e.kind) {
    case "reached":
      return `reached-${e.ns}${e.remoteIp === c.addrs.client ? "" : "-masqueraded"}`;
    case "error":
      return `error-${e.code}`;
    default:
      return e.kind;
  }
}

/**
 * The kernel check as a jest suite: a topology (netns prefix `prefix`) for the suite, deleted
 * after it, and the random-rule-set test for `c`, which must see every way of ending in
 * `kinds` (the fixed rule set sees to it); `more` adds the family's own tests.
 */
export function describeKernelOracle(
  title: string,
  c: FamilyCase,
  prefix: string,
  tool: "iptables" | "ip6tables",
  kinds: readonly string[],
  more: (topo: () => TraceTopology) => void = () => undefined,
): void {
  describe(title, () => {
    let topo: TraceTopology | undefined;
    beforeAll(async () => {
      if (process.getuid?.() === 0) topo = await createTraceTopology(prefix);
    }, 30_000);
    afterAll(() => {
      topo?.close();
      expect(liveNetns().filter((n) => n.startsWith(prefix))).toEqual([]);
    });
    // Each rule set costs a round of probes, some of which must time out: 6 by default.
    const numRuns = soakRuns(6, 14);
    kernelTest(
      `random ${c.family} rule sets: every TCP and UDP probe ends where the tracer says`,
      ["root", "ip", tool],
      async () => {
        const seen = await checkAgainstKernel(topo!, c, {
          numRuns,
          seed: Number(process.env.KNS_SEED ?? 4242),
          firstSport: 20000,
        });
        // The check has teeth only if the probes ended in every way.
        expect([...seen.keys()]).toEqual(expect.arrayContaining([...kinds]));
      },
      Math.max(120_000, numRuns * 10_000),
    );
    more(() => topo!);
  });
}
