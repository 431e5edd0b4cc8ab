/** Hand-built rule sets for tracer tests (independent of the parser). */
import { parseCIDROrHost, parseIP } from "../../../src/net/index.js";
import type {
  Chain,
  EvalContext,
  Match,
  MatchOutcome,
  Packet,
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

// Fake match modules, evaluated by `fakeEvaluator` (the tracer takes any evaluator).
export const stat = (probability: number): Match =>
  ({ module: "fake-statistic", probability }) as unknown as Match;
export const dport = (port: number): Match => ({ module: "fake-dport", port }) as unknown as Match;
export const markIs = (value: number, mask: number, negated = false): Match =>
  ({ module: "fake-mark", value, mask, negated }) as unknown as Match;
export const srcLocal = (negated = false): Match =>
  ({ module: "fake-src-local", negated }) as unknown as Match;
export const rcheck = (name: string): Match =>
  ({ module: "fake-rcheck", name }) as unknown as Match;
export const recentSet = (name: string): Match =>
  ({ module: "recent", action: "set", name, side: "source" }) as unknown as Match;
export const ctstate = (...states: string[]): Match =>
  ({ module: "fake-ctstate", states }) as unknown as Match;

export function fakeEvaluator(m: Match, p: Packet, ctx: EvalContext): MatchOutcome {
  const f = m as unknown as Record<string, unknown>;
  const yes = (b: boolean): MatchOutcome => ({ kind: b ? "match" : "no-match" });
  switch (f.module) {
    case "fake-statistic": {
      const pr = f.probability as number;
      return pr >= 1 ? yes(true) : pr <= 0 ? yes(false) : { kind: "branch", probability: pr };
    }
    case "fake-dport":
      return yes(p.dport === f.port);
    case "fake-mark":
      return yes(((p.mark & (f.mask as number)) === f.value) !== f.negated);
    case "fake-src-local":
      return yes((ctx.addrType(p.src) === "LOCAL") !== f.negated);
    case "fake-rcheck":
      return yes(ctx.recentSeen(f.name as string, p.src));
    case "fake-ctstate":
      return yes((f.states as string[]).some((s) => p.ctState.includes(s as never)));
    case "recent":
      return yes(true);
    default:
      throw new Error(`fake evaluator: ${String(f.module)}`);
  }
}

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
