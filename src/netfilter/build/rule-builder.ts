/**
 * One rule built as data and as the words its writer passes to iptables, in one pass.
 *
 * A generator (kube-proxy's proxiers, the hostport components) calls the clauses in the order
 * the real component writes its arguments (`-m comment --comment … -m tcp -p tcp -d IP --dport
 * PORT -j CHAIN`); each clause appends its words to the rule's restore text (`Rule.written`)
 * and sets the typed part that the parser reads from those words: standard options, one match
 * per `-m` module in order (a port option after a bare `-p tcp` loads the implicit module where
 * the option stands, as iptables does), one target. So the restore form prints the writer's
 * bytes while the tracer and the canonical save form read the typed rule, and no text is ever
 * parsed back (test/netfilter/build/rule-builder.test.ts checks the two agree with the parser).
 *
 * The builder is reused: a table hands out one per `append` and takes the rule back when a
 * target clause (or `end`) finishes it; build one rule at a time.
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
import { parseAddressSpecUncached, hex } from "../matches/values.js";
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

/**
 * Values shared by every rule of a rule set (a service's chains repeat one comment, one port,
 * one address): equal values are one object, which keeps a 300,000-rule set small.
 */
export class SharedRuleValues {
  readonly #addresses = new Map<string, Negatable<CIDR>>();
  readonly #negatedAddresses = new Map<string, Negatable<CIDR>>();
  readonly #protocols = new Map<string, Negatable<string>>();
  readonly #ports = new Map<string, Match>();
  readonly #jumps = new Map<string, Target>();
  #lastComment: CommentMatch = { module: "comment", comment: "" };

  constructor(readonly family: IPFamily) {}

  address(text: string, negated: boolean, what: string): Negatable<CIDR> {
    const cache = negated ? this.#negatedAddresses : this.#addresses;
    let a = cache.get(text);
    if (a === undefined) {
      a = { value: parseAddressSpecUncached(text, this.family, what), negated };
      // Endpoint addresses are mostly different from each other: keep the map bounded.
      if (cache.size < 100_000) cache.set(text, a);
    }
    return a;
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
      if (d.sport !== undefined) pm.sport = single(d.sport);
      if (d.dport !== undefined) pm.dport = single(d.dport);
      const made = pm as PortMatch;
      if (this.#ports.size < 100_000) this.#ports.set(key, made);
      return made;
    }
    return m;
  }

  jump(chain: string): Target {
    let t = this.#jumps.get(chain);
    if (t === undefined) {
      t = { kind: "jump", chain, goto: false };
      // Endpoint chains are jumped to twice at most: only the shared chains are worth keeping.
      if (this.#jumps.size < 10_000) this.#jumps.set(chain, t);
    }
    return t;
  }
}

function single(port: number): Negatable<PortRange> {
  return { value: { from: port, to: port }, negated: NOT };
}

const PROTOCOL_NUMBERS = { tcp: 6, udp: 17, sctp: 132 } as const;

const VERDICTS: Readonly<Record<Verdict, Target>> = {
  ACCEPT: { kind: "ACCEPT" },
  DROP: { kind: "DROP" },
  RETURN: { kind: "RETURN" },
};

/** kube-proxy quotes an argument exactly when it holds a space (its comments never hold `"`). */
export function quoteArg(text: string): string {
  return text.includes(" ") ? `"${text}"` : text;
}

export class RuleBuilder {
  #written = "";
  #matches: (Match | PortDraft)[] = [];
  #protocol: Negatable<string> | undefined;
  #source: Negatable<CIDR> | undefined;
  #destination: Negatable<CIDR> | undefined;
  #inInterface: Negatable<string> | undefined;
  /** Index in #matches of the port module that takes port options, or -1. */
  #portAt = -1;

  constructor(
    private readonly values: SharedRuleValues,
    private readonly finish: (rule: Rule) => void,
  ) {}

  /** Starts a new rule (called by the table). */
  reset(): this {
    this.#written = "";
    this.#matches = [];
    this.#protocol = undefined;
    this.#source = undefined;
    this.#destination = undefined;
    this.#inInterface = undefined;
    this.#portAt = -1;
    return this;
  }

  #words(w: string): void {
    this.#written = this.#written === "" ? w : `${this.#written} ${w}`;
  }

  /** Any match, with the words that write it (`-m MODULE …`). */
  match(m: Match, words: string): this {
    this.#words(words);
    this.#matches.push(m);
    return this;
  }

  /** `-m comment --comment TEXT` (quoted when it holds a space). */
  comment(text: string): this {
    return this.match(this.values.comment(text), `-m comment --comment ${quoteArg(text)}`);
  }

  /** `-m tcp` (or udp, sctp): the module, whose port options may follow later words. */
  portModule(module: PortModule): this {
    this.#words(`-m ${module}`);
    this.#portAt = this.#matches.length;
    this.#matches.push({ module });
    return this;
  }

  /** `-p PROTOCOL`. */
  protocol(name: string): this {
    this.#words(`-p ${name}`);
    this.#protocol = this.values.protocol(name);
    return this;
  }

  /** `-m P -p P`, the way kube-proxy's iptables proxier writes a protocol. */
  protocolMatch(name: PortModule): this {
    return this.portModule(name).protocol(name);
  }

  /** `[!] -s ADDRESS[/PREFIX]`. */
  source(address: string, negated = false): this {
    this.#words(negated ? `! -s ${address}` : `-s ${address}`);
    this.#source = this.values.address(address, negated, "-s");
    return this;
  }

  /** `[!] -d ADDRESS[/PREFIX]`. */
  destination(address: string, negated = false): this {
    this.#words(negated ? `! -d ${address}` : `-d ${address}`);
    this.#destination = this.values.address(address, negated, "-d");
    return this;
  }

  /** `[!] -i NAME` (`NAME+`: every interface whose name starts with NAME). */
  inInterface(name: string, negated = false): this {
    this.#words(negated ? `! -i ${name}` : `-i ${name}`);
    this.#inInterface = { value: name, negated };
    return this;
  }

  /** `--dport PORT` of the loaded port module, or of the one `-p` implies. */
  dport(port: number): this {
    this.#words(`--dport ${port}`);
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
  markMatch(value: number, mask: number, spelled: string, negated = false): this {
    return this.match(
      { module: "mark", mark: { value: { value, mask }, negated } },
      `-m mark ${negated ? "! " : ""}--mark ${spelled}`,
    );
  }

  /** `-m addrtype [!] --src-type TYPE` / `--dst-type TYPE`. */
  addrtype(side: "src" | "dst", type: AddrType, negated = false): this {
    const v = { value: [type], negated };
    const m: AddrtypeMatch =
      side === "src" ? { module: "addrtype", srcType: v } : { module: "addrtype", dstType: v };
    return this.match(m, `-m addrtype ${negated ? "! " : ""}--${side}-type ${type}`);
  }

  /** `-m conntrack [!] --ctstate S1,S2`. */
  ctstate(states: readonly CtState[], negated = false): this {
    const m: ConntrackMatch = { module: "conntrack", ctstate: { value: states, negated } };
    return this.match(m, `-m conntrack ${negated ? "! " : ""}--ctstate ${states.join(",")}`);
  }

  /** `-m statistic --mode random --probability P`, P as written. */
  probability(written: string): this {
    return this.match(
      { module: "statistic", mode: "random", probability: Number(written), negated: NOT },
      `-m statistic --mode random --probability ${written}`,
    );
  }

  /** `-m recent --name NAME --set`. */
  recentSet(name: string): this {
    return this.match(
      this.#recent(name, "set", undefined, false),
      `-m recent --name ${name} --set`,
    );
  }

  /** `-m recent --name NAME --rcheck --seconds S --reap`. */
  recentCheck(name: string, seconds: number): this {
    return this.match(
      this.#recent(name, "rcheck", seconds, true),
      `-m recent --name ${name} --rcheck --seconds ${seconds} --reap`,
    );
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
    return this.match({ module: "nfacct", name }, `-m nfacct --nfacct-name ${name}`);
  }

  /** `-m set [!] --match-set NAME FLAGS`. */
  set(name: string, flags: readonly ("src" | "dst")[], negated = false): this {
    return this.match(
      { module: "set", name, flags, negated },
      `-m set ${negated ? "! " : ""}--match-set ${name} ${flags.join(",")}`,
    );
  }

  /** `-m ipvs --vaddr IP --vproto PROTOCOL --vport PORT`: the packet's IPVS virtual service. */
  ipvsVirtualService(ip: string, protocol: "tcp" | "udp" | "sctp", port: number): this {
    const m: IpvsMatch = {
      module: "ipvs",
      vaddr: this.values.address(ip, NOT, "--vaddr"),
      vproto: { value: PROTOCOL_NUMBERS[protocol], negated: NOT },
      vport: { value: port, negated: NOT },
    };
    return this.match(m, `-m ipvs --vaddr ${ip} --vproto ${protocol} --vport ${port}`);
  }

  // ---- targets: each finishes the rule ----

  /** `-j CHAIN` (a user chain). */
  jump(chain: string): void {
    this.#words(`-j ${chain}`);
    this.#end(this.values.jump(chain));
  }

  /** `-j ACCEPT` / `DROP` / `RETURN`. */
  verdict(v: Verdict): void {
    this.#words(`-j ${v}`);
    this.#end(VERDICTS[v]);
  }

  /** `-j REJECT` (the family's default `--reject-with`). */
  reject(): void {
    this.#words("-j REJECT");
    this.#end({ kind: "REJECT", rejectWith: defaultRejectWith(this.values.family) });
  }

  /** `-j DNAT --to-destination IP:PORT` (`[IP]:PORT` for IPv6). */
  dnat(ip: string, port: number): void {
    const host = this.values.family === "IPv6" ? `[${ip}]` : ip;
    this.#words(`-j DNAT --to-destination ${host}:${port}`);
    const address = this.values.address(ip, false, "--to-destination").value.address;
    this.#end({
      kind: "DNAT",
      to: { ipFrom: address, ipTo: address, ports: { from: port, to: port } },
      random: NOT,
      persistent: NOT,
    });
  }

  /** `-j MASQUERADE [--random-fully]`. */
  masquerade(randomFully: boolean): void {
    this.#words(randomFully ? "-j MASQUERADE --random-fully" : "-j MASQUERADE");
    this.#end({ kind: "MASQUERADE", random: NOT, randomFully });
  }

  /** `-j MARK --or-mark V` / `--xor-mark V` (V spelled as the writer does). */
  mark(op: "or-mark" | "xor-mark", value: number, spelled = hex(value)): void {
    this.#words(`-j MARK --${op} ${spelled}`);
    this.#end({ kind: "MARK", value, mask: op === "or-mark" ? value : 0, op });
  }

  /** Any other target, with the words that write it (`-j NAME …`). */
  target(t: Target, words: string): void {
    this.#words(words);
    this.#end(t);
  }

  /** A rule without a target (it only counts). */
  end(): void {
    this.#end(undefined);
  }

  #end(target: Target | undefined): void {
    const ms = this.#matches;
    let matches: readonly Match[] = ALWAYS;
    if (ms.length > 0) {
      if (this.#portAt !== -1) ms[this.#portAt] = this.values.port(ms[this.#portAt] as PortDraft);
      matches = ms as Match[];
    }
    // The parser's key order (parse/rule.ts makeRule): absent parts are not set.
    const rule: MutableRule = { matches, written: this.#written };
    if (this.#protocol !== undefined) rule.protocol = this.#protocol;
    if (this.#source !== undefined) rule.source = this.#source;
    if (this.#destination !== undefined) rule.destination = this.#destination;
    if (this.#inInterface !== undefined) rule.inInterface = this.#inInterface;
    if (target !== undefined) rule.target = target;
    rule.line = 0;
    this.finish(rule);
  }
}
