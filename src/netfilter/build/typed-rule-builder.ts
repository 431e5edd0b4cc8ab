/**
 * The typed half of a written rule (netfilter/build/rule-builder.ts records the clauses a
 * generator calls, with their words; a rule set's typed rules are made from that record only
 * when they are read). Each clause sets the typed part that the parser reads from the clause's
 * words: standard options, one match per `-m` module in order (a port option after a bare
 * `-p tcp` loads the implicit module where the option stands, as iptables does), one target.
 * So the restore form prints the writer's bytes while the tracer and the canonical save form
 * read the typed rule, and no text is ever parsed back (test/proxiers/iptables/rule-set.test.ts
 * checks the two agree with the parser).
 *
 * The builder is reused: a table hands it one recorded rule at a time (`reset` with the rule's
 * words) and takes the rule back when a target clause (or `end`) finishes it.
 */
import type { CIDR, IPAddress, IPFamily, PortRange } from "../../net/index.js";
import type { AddrType, CtState, Match, Negatable, Rule } from "../model.js";
import type {
  AddrtypeMatch,
  CommentMatch,
  ConntrackMatch,
  IpvsMatch,
  SctpMatch,
  TcpMatch,
  UdpMatch,
} from "../matches/index.js";
import { parseAddressSpecUncached } from "../matches/values.js";
import type { Target } from "../targets/index.js";
import { defaultRejectWith } from "../targets/reject.js";

/** The modules with `--sport`/`--dport` that `-p` loads implicitly. */
export type PortModule = "tcp" | "udp" | "sctp";
type PortMatch = TcpMatch | UdpMatch | SctpMatch;

export type Verdict = "ACCEPT" | "DROP" | "RETURN";
export type MarkOp = "or-mark" | "xor-mark" | "set-xmark";

/** A match that is still gathering its port options. */
interface PortDraft {
  readonly module: PortModule;
  sport?: number;
  dport?: number;
}

/** Mutable while built; frozen in shape once handed over. */
type MutableRule = { -readonly [K in keyof Rule]: Rule[K] };

const NOT = false as const;
const ALWAYS: readonly Match[] = Object.freeze([]);

/** How many recent values a memo keeps: rules alike follow each other. */
const RECENT = 4;

/** The last few values made, by key: no map (most endpoint values are never seen again). */
class RecentValues<V> {
  readonly #keys: string[] = [];
  readonly #values: V[] = [];
  #next = 0;

  get(key: string): V | undefined {
    const k = this.#keys;
    for (let i = 0; i < k.length; i++) if (k[i] === key) return this.#values[i];
    return undefined;
  }

  set(key: string, value: V): V {
    this.#keys[this.#next] = key;
    this.#values[this.#next] = value;
    this.#next = (this.#next + 1) % RECENT;
    return value;
  }
}

/**
 * Values shared by the rules of a rule set (a service's chains repeat one comment, one port,
 * one address, one jump): equal values made in a row are one object. A large rule set stays
 * all in memory until it is printed, so fewer objects mean a smaller heap and cheaper garbage
 * collections (measured with bench/render-iptables.ts).
 */
export class SharedRuleValues {
  readonly #addresses = new RecentValues<Negatable<CIDR>>();
  readonly #negatedAddresses = new RecentValues<Negatable<CIDR>>();
  readonly #protocols = new Map<string, Negatable<string>>();
  readonly #ports = new Map<string, Match>();
  readonly #portRanges = new Map<number, PortRange>();
  readonly #jumps = new RecentValues<Target>();
  #lastComment: CommentMatch = { module: "comment", comment: "" };

  constructor(readonly family: IPFamily) {}

  address(text: string, negated: boolean, what: string): Negatable<CIDR> {
    const cache = negated ? this.#negatedAddresses : this.#addresses;
    const a = cache.get(text);
    if (a !== undefined) return a;
    const c = parseAddressSpecUncached(text, this.family, what);
    // A host address is its own network: one object for both.
    const value =
      c.prefix === (this.family === "IPv4" ? 32 : 128) ? { ...c, network: c.address } : c;
    return cache.set(text, { value, negated });
  }

  /** `{ from: port, to: port }`, one object per port. */
  portRange(port: number): PortRange {
    let r = this.#portRanges.get(port);
    if (r === undefined) this.#portRanges.set(port, (r = { from: port, to: port }));
    return r;
  }

  protocol(name: string): Negatable<string> {
    let p = this.#protocols.get(name);
    if (p === undefined) this.#protocols.set(name, (p = { value: name, negated: NOT }));
    return p;
  }

  comment(text: string): CommentMatch {
    if (this.#lastComment.comment !== text)
      this.#lastComment = { module: "comment", comment: text };
    return this.#lastComment;
  }

  port(d: PortDraft): Match {
    const key = `${d.module} ${d.sport ?? ""} ${d.dport ?? ""}`;
    const m = this.#ports.get(key);
    if (m === undefined) {
      const pm: { -readonly [K in keyof PortMatch]?: PortMatch[K] } = { module: d.module };
      if (d.sport !== undefined) pm.sport = { value: this.portRange(d.sport), negated: NOT };
      if (d.dport !== undefined) pm.dport = { value: this.portRange(d.dport), negated: NOT };
      const made = pm as PortMatch;
      if (this.#ports.size < 100_000) this.#ports.set(key, made);
      return made;
    }
    return m;
  }

  jump(chain: string): Target {
    return this.#jumps.get(chain) ?? this.#jumps.set(chain, { kind: "jump", chain, goto: false });
  }
}

const PROTOCOL_NUMBERS = { tcp: 6, udp: 17, sctp: 132 } as const;

const VERDICTS: Readonly<Record<Verdict, Target>> = {
  ACCEPT: { kind: "ACCEPT" },
  DROP: { kind: "DROP" },
  RETURN: { kind: "RETURN" },
};

export class TypedRuleBuilder {
  /** The rule's restore words (`Rule.written`), recorded when the rule was written. */
  #written = "";
  #matches: (Match | PortDraft)[] = [];
  #protocol: Negatable<string> | undefined;
  #source: Negatable<CIDR> | undefined;
  #destination: Negatable<CIDR> | undefined;
  #inInterface: Negatable<string> | undefined;
  #outInterface: Negatable<string> | undefined;
  /** Index in #matches of the port module that takes port options, or -1. */
  #portAt = -1;

  constructor(
    private readonly values: SharedRuleValues,
    private readonly finish: (rule: Rule) => void,
  ) {}

  /** Starts a new rule (called by the table). */
  reset(written: string): this {
    this.#written = written;
    this.#matches = [];
    this.#protocol = undefined;
    this.#source = undefined;
    this.#destination = undefined;
    this.#inInterface = undefined;
    this.#outInterface = undefined;
    this.#portAt = -1;
    return this;
  }

  /** Any match. */
  match(m: Match): this {
    this.#matches.push(m);
    return this;
  }

  /** `-m comment --comment TEXT` (quoted when it holds a space). */
  comment(text: string): this {
    return this.match(this.values.comment(text));
  }

  /** `-m tcp` (or udp, sctp): the module, whose port options may follow later words. */
  portModule(module: PortModule): this {
    this.#portAt = this.#matches.length;
    this.#matches.push({ module });
    return this;
  }

  /** `-p PROTOCOL`. */
  protocol(name: string): this {
    this.#protocol = this.values.protocol(name);
    return this;
  }

  /** `-m P -p P`, the way kube-proxy's iptables proxier writes a protocol. */
  protocolMatch(name: PortModule): this {
    return this.portModule(name).protocol(name);
  }

  /** `[!] -s ADDRESS[/PREFIX]`. */
  source(address: string, negated = false): this {
    this.#source = this.values.address(address, negated, "-s");
    return this;
  }

  /** `[!] -d ADDRESS[/PREFIX]`. */
  destination(address: string, negated = false): this {
    this.#destination = this.values.address(address, negated, "-d");
    return this;
  }

  /** `[!] -i NAME` (`NAME+`: every interface whose name starts with NAME). */
  inInterface(name: string, negated = false): this {
    this.#inInterface = { value: name, negated };
    return this;
  }

  /** `[!] -o NAME`. */
  outInterface(name: string, negated = false): this {
    this.#outInterface = { value: name, negated };
    return this;
  }

  /** `--dport PORT` of the loaded port module, or of the one `-p` implies. */
  dport(port: number): this {
    this.#portDraft().dport = port;
    return this;
  }

  #portDraft(): PortDraft {
    if (this.#portAt === -1) {
      const p = this.#protocol;
      if (p === undefined || (p.value !== "tcp" && p.value !== "udp" && p.value !== "sctp"))
        throw new Error("a port option needs -m tcp/udp/sctp or -p tcp/udp/sctp first");
      this.#portAt = this.#matches.length;
      this.#matches.push({ module: p.value });
    }
    return this.#matches[this.#portAt] as PortDraft;
  }

  /** `-m mark [!] --mark VALUE/MASK`, with the value and mask spelled as the writer does. */
  markMatch(value: number, mask: number, negated = false): this {
    return this.match({ module: "mark", mark: { value: { value, mask }, negated } });
  }

  /** `-m addrtype [!] --src-type TYPE` / `--dst-type TYPE`. */
  addrtype(side: "src" | "dst", type: AddrType, negated = false): this {
    const v = { value: [type], negated };
    const m: AddrtypeMatch =
      side === "src" ? { module: "addrtype", srcType: v } : { module: "addrtype", dstType: v };
    return this.match(m);
  }

  /** `-m conntrack [!] --ctstate S1,S2`. */
  ctstate(states: readonly CtState[], negated = false): this {
    const m: ConntrackMatch = { module: "conntrack", ctstate: { value: states, negated } };
    return this.match(m);
  }

  /** `-m statistic --mode random --probability P`, P as written. */
  probability(written: string): this {
    return this.match({
      module: "statistic",
      mode: "random",
      probability: Number(written),
      negated: NOT,
    });
  }

  /** `-m recent --name NAME --set`. */
  recentSet(name: string): this {
    return this.match(this.#recent(name, "set", undefined, false));
  }

  /** `-m recent --name NAME --rcheck --seconds S --reap`. */
  recentCheck(name: string, seconds: number): this {
    return this.match(this.#recent(name, "rcheck", seconds, true));
  }

  #recent(name: string, action: "set" | "rcheck", seconds: number | undefined, reap: boolean) {
    const mask: IPAddress =
      this.values.family === "IPv4"
        ? { family: "IPv4", value: 0xffffffff }
        : { family: "IPv6", value: (1n << 128n) - 1n };
    const m: Match = {
      module: "recent",
      action,
      negated: NOT,
      name,
      ...(seconds !== undefined && { seconds }),
      reap,
      rttl: NOT,
      mask,
      side: "source",
    };
    return m;
  }

  /** `-m nfacct --nfacct-name NAME`. */
  nfacct(name: string): this {
    return this.match({ module: "nfacct", name });
  }

  /** `-m set [!] --match-set NAME FLAGS`. */
  set(name: string, flags: readonly ("src" | "dst")[], negated = false): this {
    return this.match({ module: "set", name, flags, negated });
  }

  /** `-m ipvs --vaddr IP --vproto PROTOCOL --vport PORT`: the packet's IPVS virtual service. */
  ipvsVirtualService(ip: string, protocol: "tcp" | "udp" | "sctp", port: number): this {
    const m: IpvsMatch = {
      module: "ipvs",
      vaddr: this.values.address(ip, NOT, "--vaddr"),
      vproto: { value: PROTOCOL_NUMBERS[protocol], negated: NOT },
      vport: { value: port, negated: NOT },
    };
    return this.match(m);
  }

  // ---- targets: each finishes the rule ----

  /** `-j CHAIN` (a user chain). */
  jump(chain: string): void {
    this.#end(this.values.jump(chain));
  }

  /** `-j ACCEPT` / `DROP` / `RETURN`. */
  verdict(v: Verdict): void {
    this.#end(VERDICTS[v]);
  }

  /** `-j REJECT` (the family's default `--reject-with`). */
  reject(): void {
    this.#end({ kind: "REJECT", rejectWith: defaultRejectWith(this.values.family) });
  }

  /** `-j DNAT --to-destination IP:PORT` (`[IP]:PORT` for IPv6). */
  dnat(ip: string, port: number): void {
    const address = this.values.address(ip, false, "--to-destination").value.address;
    this.#end({
      kind: "DNAT",
      to: { ipFrom: address, ipTo: address, ports: this.values.portRange(port) },
      random: NOT,
      persistent: NOT,
    });
  }

  /** `-j MASQUERADE [--random-fully]`. */
  masquerade(randomFully: boolean): void {
    this.#end({ kind: "MASQUERADE", random: NOT, randomFully });
  }

  /** `-j MARK --or-mark V` / `--xor-mark V` (V spelled as the writer does). */
  mark(op: "or-mark" | "xor-mark", value: number): void {
    this.#end({ kind: "MARK", value, mask: op === "or-mark" ? value : 0, op });
  }

  /** Any other target. */
  target(t: Target): void {
    this.#end(t);
  }

  /** A rule without a target (it only counts). */
  end(): void {
    this.#end(undefined);
  }

  /** The match list of the last rule: an equal list (the same values) is that one. */
  #lastMatches: readonly Match[] = ALWAYS;

  #end(target: Target | undefined): void {
    const ms = this.#matches;
    let matches: readonly Match[] = ALWAYS;
    if (ms.length > 0) {
      if (this.#portAt !== -1) ms[this.#portAt] = this.values.port(ms[this.#portAt] as PortDraft);
      const last = this.#lastMatches;
      let same = last.length === ms.length;
      for (let i = 0; same && i < ms.length; i++) same = ms[i] === last[i];
      matches = same ? last : (ms as Match[]);
      this.#lastMatches = matches;
    }
    const written = this.#written;
    const protocol = this.#protocol;
    const source = this.#source;
    const destination = this.#destination;
    // Whole object literals, one per common shape (as parse/rule.ts makes them): V8 gives each
    // literal its fields in the object and allocates long-lived ones straight in the old space.
    let rule: MutableRule;
    if (
      this.#inInterface !== undefined ||
      this.#outInterface !== undefined ||
      target === undefined
    ) {
      rule = { matches, written };
      if (protocol !== undefined) rule.protocol = protocol;
      if (source !== undefined) rule.source = source;
      if (destination !== undefined) rule.destination = destination;
      if (this.#inInterface !== undefined) rule.inInterface = this.#inInterface;
      if (this.#outInterface !== undefined) rule.outInterface = this.#outInterface;
      if (target !== undefined) rule.target = target;
      rule.line = 0;
    } else if (protocol === undefined) {
      if (source === undefined)
        rule =
          destination === undefined
            ? { matches, written, target, line: 0 }
            : { matches, written, destination, target, line: 0 };
      else
        rule =
          destination === undefined
            ? { matches, written, source, target, line: 0 }
            : { matches, written, source, destination, target, line: 0 };
    } else if (source === undefined)
      rule =
        destination === undefined
          ? { matches, written, protocol, target, line: 0 }
          : { matches, written, protocol, destination, target, line: 0 };
    else
      rule =
        destination === undefined
          ? { matches, written, protocol, source, target, line: 0 }
          : { matches, written, protocol, source, destination, target, line: 0 };
    this.finish(rule);
  }
}
