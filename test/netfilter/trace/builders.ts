/** Hand-built rule sets for tracer tests (independent of the parser). */
import { parseCIDROrHost, parseIP } from "../../../src/net/index.js";
import type {
  Chain,
  CtState,
  Match,
  Rule,
  RuleSet,
  Table,
  TableName,
} from "../../../src/netfilter/model.js";
import type { Target } from "../../../src/netfilter/targets/index.js";

export interface RuleOpts {
  readonly p?: string;
  readonly s?: string;
  readonly d?: string;
  readonly notS?: string;
  readonly notD?: string;
  readonly i?: string;
  readonly o?: string;
  readonly m?: readonly Match[];
}

function cidr(s: string) {
  const c = parseCIDROrHost(s);
  if (c === undefined) throw new Error(`bad cidr ${s}`);
  return c;
}

export function rule(target: Target | undefined, o: RuleOpts = {}): Rule {
  return {
    ...(o.p !== undefined ? { protocol: { value: o.p, negated: false } } : {}),
    ...(o.s !== undefined ? { source: { value: cidr(o.s), negated: false } } : {}),
    ...(o.notS !== undefined ? { source: { value: cidr(o.notS), negated: true } } : {}),
    ...(o.d !== undefined ? { destination: { value: cidr(o.d), negated: false } } : {}),
    ...(o.notD !== undefined ? { destination: { value: cidr(o.notD), negated: true } } : {}),
    ...(o.i !== undefined ? { inInterface: { value: o.i, negated: false } } : {}),
    ...(o.o !== undefined ? { outInterface: { value: o.o, negated: false } } : {}),
    matches: o.m ?? [],
    ...(target !== undefined ? { target } : {}),
  };
}

export const ACCEPT: Target = { kind: "ACCEPT" };
export const DROP: Target = { kind: "DROP" };
export const REJECT: Target = { kind: "REJECT" };
export const RETURN: Target = { kind: "RETURN" };
export const jump = (chain: string): Target => ({ kind: "jump", chain, goto: false });
export const goto = (chain: string): Target => ({ kind: "jump", chain, goto: true });
export function dnat(hostPort: string): Target {
  const i = hostPort.lastIndexOf(":");
  const ip = parseIP(hostPort.slice(0, i).replace(/^\[|\]$/g, ""));
  const port = Number(hostPort.slice(i + 1));
  if (ip === undefined) throw new Error(hostPort);
  return {
    kind: "DNAT",
    to: { ipFrom: ip, ipTo: ip, ports: { from: port, to: port } },
    random: false,
    persistent: false,
  };
}
export const MASQUERADE: Target = { kind: "MASQUERADE", random: false, randomFully: false };
export const orMark = (v: number): Target => ({ kind: "MARK", value: v, mask: v, op: "or-mark" });
export const xorMark = (v: number): Target => ({ kind: "MARK", value: v, mask: 0, op: "xor-mark" });

export function chain(name: string, rules: readonly Rule[], policy?: "ACCEPT" | "DROP"): Chain {
  return { name, rules, ...(policy !== undefined ? { policy } : {}) };
}
export function table(name: TableName, chains: readonly Chain[]): Table {
  return { name, chains };
}
export function ruleSet(tables: readonly Table[], family: "IPv4" | "IPv6" = "IPv4"): RuleSet {
  return { family, tables };
}

// Match modules as the tracer tests use them (each a real module: an unknown one is an error).
/** `-m statistic --mode nth --every N` for p = 1/N: the kernel's exact share, no rounding. */
export const stat = (probability: number): Match => {
  const every = Math.round(1 / probability);
  if (1 / every !== probability) throw new Error(`stat(${probability}): not 1/N`);
  return { module: "statistic", mode: "nth", every, packet: 0, negated: false };
};
/** `-m tcp --dport PORT` (the rule's `-p tcp` is the caller's). */
export const dport = (port: number): Match => ({
  module: "tcp",
  dport: { value: { from: port, to: port }, negated: false },
});
export const markIs = (value: number, mask: number, negated = false): Match => ({
  module: "mark",
  mark: { value: { value, mask }, negated },
});
/** `-m addrtype [!] --src-type LOCAL`. */
export const srcLocal = (negated = false): Match => ({
  module: "addrtype",
  srcType: { value: ["LOCAL"], negated },
});
const recent = (action: "set" | "rcheck", name: string): Match => ({
  module: "recent",
  action,
  negated: false,
  name,
  reap: false,
  rttl: false,
  mask: parseIP("255.255.255.255")!,
  side: "source",
});
export const rcheck = (name: string): Match => recent("rcheck", name);
export const recentSet = (name: string): Match => recent("set", name);
export const ctstate = (...states: CtState[]): Match => ({
  module: "conntrack",
  ctstate: { value: states, negated: false },
});

// Real match modules (evaluated by the match registry).
export const tcpDport = (port: number, negated = false): Match => ({
  module: "tcp",
  dport: { value: { from: port, to: port }, negated },
});
export const udpDport = (port: number, negated = false): Match => ({
  module: "udp",
  dport: { value: { from: port, to: port }, negated },
});
export const statistic = (probability: number): Match => ({
  module: "statistic",
  mode: "random",
  probability,
  negated: false,
});

/**
 * iptables-restore text of a nat table with a Service at 172.30.0.1:80 split 50/50 between
 * 10.244.1.5:8080 and 10.245.1.6:`port2` (two DNAT rules in SVC), and `postrouting`'s rules
 * (`-A POSTROUTING ...` lines) after it.
 */
export function twoEndpointServiceRules(port2: number, postrouting: readonly string[]): string {
  return [
    "*nat",
    ":PREROUTING ACCEPT [0:0]",
    ":POSTROUTING ACCEPT [0:0]",
    ":SVC - [0:0]",
    "-A PREROUTING -p tcp -d 172.30.0.1 --dport 80 -j SVC",
    "-A SVC -p tcp -m statistic --mode random --probability 0.5 -j DNAT --to-destination 10.244.1.5:8080",
    `-A SVC -p tcp -j DNAT --to-destination 10.245.1.6:${port2}`,
    ...postrouting,
    "COMMIT",
    "",
  ].join("\n");
}
