/**
 * One rule written by a generator, recorded compactly: its restore words and the clauses that
 * make them.
 *
 * A generator (kube-proxy's proxiers, the hostport components) calls the clauses in the order
 * the real component writes its arguments (`-m comment --comment … -m tcp -p tcp -d IP --dport
 * PORT -j CHAIN`). Each clause writes its words to the table's restore lines (UTF-8 bytes,
 * utf8-chunks.ts: no string per word or line) and its code and arguments to the table's clause
 * log (a flat array: no object per rule or per clause; no log at all for a text-only table). The
 * typed rule (`Rule`: standard options, matches, target) is made from the log by
 * typed-rule-builder.ts only when a rule set is read, so printing the restore text (the common
 * use: `render iptables`) builds no rule objects, and no text is ever parsed back. A large rule
 * set stays in memory until it is printed, and fewer live objects make garbage collection cheap
 * (measured with bench/render-iptables.ts).
 *
 * What the typed half would refuse (a port option without a protocol, an address that is not
 * one) is refused here, as the clause is written.
 *
 * The builder is reused: a table hands it out per `append` and takes the rule back when a
 * target clause (or `end`) finishes it; build one rule at a time.
 */
import type { AddrType, CtState, Match } from "../model.js";
import { fastIPv4, hex } from "../matches/values.js";
import { assertNever } from "../../util/assert-never.js";
import type { Target } from "../targets/index.js";
import type { Utf8Chunks } from "./utf8-chunks.js";
import type {
  PortModule,
  SharedRuleValues,
  TypedRuleBuilder,
  Verdict,
} from "./typed-rule-builder.js";

export type { MarkOp, PortModule, Verdict } from "./typed-rule-builder.js";

/** kube-proxy quotes an argument exactly when it holds a space (its comments never hold `"`). */
export function quoteArg(text: string): string {
  return text.includes(" ") ? `"${text}"` : text;
}

/** A clause's code in the log; its arguments follow it (a fixed number per code). */
const Op = {
  Match: 0,
  Comment: 1,
  PortModule: 2,
  Protocol: 3,
  Source: 4,
  Destination: 5,
  InInterface: 6,
  Dport: 7,
  MarkMatch: 8,
  Addrtype: 9,
  Ctstate: 10,
  Probability: 11,
  RecentSet: 12,
  RecentCheck: 13,
  Nfacct: 14,
  Set: 15,
  IpvsVirtualService: 16,
  // Targets: each ends a rule.
  Jump: 17,
  Verdict: 18,
  Reject: 19,
  Dnat: 20,
  Masquerade: 21,
  Mark: 22,
  Target: 23,
  End: 24,
  OutInterface: 25,
} as const;
type Op = (typeof Op)[keyof typeof Op];

/** Told when a rule is finished (its words are written, ending with a newline). */
export type RuleSink = () => void;

export class RuleBuilder {
  /** The log's length before this rule: an unfinished rule's clauses are dropped. */
  #start = 0;
  /** The text's length before this rule: an unfinished rule's words are dropped. */
  #textStart = 0;
  #protocol: string | undefined;
  #portModule = false;

  constructor(
    private readonly values: SharedRuleValues,
    /** The table's clause log (none when the table keeps text only). */
    private readonly log: unknown[] | undefined,
    /**
     * The table's rule lines: each clause writes its words there as it is called (each word
     * after a space), so a rule allocates no string of its own.
     */
    private readonly text: Utf8Chunks,
    private readonly finish: RuleSink,
  ) {}

  /** Starts a new rule in `chain` (called by the table). */
  reset(chain: string): this {
    this.text.truncate(this.#textStart);
    this.text.write("-A ");
    this.text.write(chain);
    if (this.log !== undefined) this.log.length = this.#start;
    this.#protocol = undefined;
    this.#portModule = false;
    return this;
  }

  /** Any match, with the words that write it (`-m MODULE …`). */
  match(m: Match, words: string): this {
    this.#word(words);
    this.log?.push(Op.Match, m);
    return this;
  }

  /** `-m comment --comment TEXT` (quoted when it holds a space). */
  comment(text: string): this {
    const quoted = text.includes(" ");
    this.text.write(quoted ? ' -m comment --comment "' : " -m comment --comment ");
    this.text.write(text);
    if (quoted) this.text.write('"');
    this.log?.push(Op.Comment, text);
    return this;
  }

  /** `-m tcp` (or udp, sctp): the module, whose port options may follow later words. */
  portModule(module: PortModule): this {
    this.text.write(" -m ");
    this.text.write(module);
    this.log?.push(Op.PortModule, module);
    this.#portModule = true;
    return this;
  }

  /** `-p PROTOCOL`. */
  protocol(name: string): this {
    this.text.write(" -p ");
    this.text.write(name);
    this.log?.push(Op.Protocol, name);
    this.#protocol = name;
    return this;
  }

  /** `-m P -p P`, the way kube-proxy's iptables proxier writes a protocol. */
  protocolMatch(name: PortModule): this {
    return this.portModule(name).protocol(name);
  }

  /** `[!] -s ADDRESS[/PREFIX]`. */
  source(address: string, negated = false): this {
    this.#address(address, negated, "-s");
    this.text.write(negated ? " ! -s " : " -s ");
    this.text.write(address);
    this.log?.push(Op.Source, address, negated);
    return this;
  }

  /** `[!] -d ADDRESS[/PREFIX]`. */
  destination(address: string, negated = false): this {
    this.#address(address, negated, "-d");
    this.text.write(negated ? " ! -d " : " -d ");
    this.text.write(address);
    this.log?.push(Op.Destination, address, negated);
    return this;
  }

  /** An address the typed rule will parse: a plain IPv4 address is checked without objects. */
  #address(text: string, negated: boolean, what: string): void {
    // An endpoint's address is written twice in a row (KUBE-SEP: `-s IP`, then DNAT to it).
    if (text === this.#lastIPv4) return;
    if (this.values.family === "IPv4" && fastIPv4(text) !== undefined) {
      this.#lastIPv4 = text;
      return;
    }
    this.values.address(text, negated, what);
  }

  /** The last plain IPv4 address checked (a family's builder keeps its family). */
  #lastIPv4: string | undefined;

  /** `[!] -i NAME` (`NAME+`: every interface whose name starts with NAME). */
  inInterface(name: string, negated = false): this {
    this.text.write(negated ? " ! -i " : " -i ");
    this.text.write(name);
    this.log?.push(Op.InInterface, name, negated);
    return this;
  }

  /** `[!] -o NAME`. */
  outInterface(name: string, negated = false): this {
    this.text.write(negated ? " ! -o " : " -o ");
    this.text.write(name);
    this.log?.push(Op.OutInterface, name, negated);
    return this;
  }

  /** `--dport PORT` of the loaded port module, or of the one `-p` implies. */
  dport(port: number): this {
    if (!this.#portModule) {
      const p = this.#protocol;
      if (p !== "tcp" && p !== "udp" && p !== "sctp")
        throw new Error("a port option needs -m tcp/udp/sctp or -p tcp/udp/sctp first");
      this.#portModule = true;
    }
    this.text.write(" --dport ");
    this.text.writeNumber(port);
    this.log?.push(Op.Dport, port);
    return this;
  }

  /** `-m mark [!] --mark VALUE/MASK`, with the value and mask spelled as the writer does. */
  markMatch(value: number, mask: number, spelled: string, negated = false): this {
    this.text.write(negated ? " -m mark ! --mark " : " -m mark --mark ");
    this.text.write(spelled);
    this.log?.push(Op.MarkMatch, value, mask, negated);
    return this;
  }

  /** `-m addrtype [!] --src-type TYPE` / `--dst-type TYPE`. */
  addrtype(side: "src" | "dst", type: AddrType, negated = false): this {
    this.#word(`-m addrtype ${negated ? "! " : ""}--${side}-type ${type}`);
    this.log?.push(Op.Addrtype, side, type, negated);
    return this;
  }

  /** `-m conntrack [!] --ctstate S1,S2`. */
  ctstate(states: readonly CtState[], negated = false): this {
    this.#word(`-m conntrack ${negated ? "! " : ""}--ctstate ${states.join(",")}`);
    this.log?.push(Op.Ctstate, states, negated);
    return this;
  }

  /** `-m statistic --mode random --probability P`, P as written. */
  probability(written: string): this {
    this.text.write(" -m statistic --mode random --probability ");
    this.text.write(written);
    this.log?.push(Op.Probability, written);
    return this;
  }

  /** `-m recent --name NAME --set`. */
  recentSet(name: string): this {
    this.text.write(" -m recent --name ");
    this.text.write(name);
    this.text.write(" --set");
    this.log?.push(Op.RecentSet, name);
    return this;
  }

  /** `-m recent --name NAME --rcheck --seconds S --reap`. */
  recentCheck(name: string, seconds: number): this {
    this.#word(`-m recent --name ${name} --rcheck --seconds ${seconds} --reap`);
    this.log?.push(Op.RecentCheck, name, seconds);
    return this;
  }

  /** `-m nfacct --nfacct-name NAME`. */
  nfacct(name: string): this {
    this.#word(`-m nfacct --nfacct-name ${name}`);
    this.log?.push(Op.Nfacct, name);
    return this;
  }

  /** `-m set [!] --match-set NAME FLAGS`. */
  set(name: string, flags: readonly ("src" | "dst")[], negated = false): this {
    this.#word(`-m set ${negated ? "! " : ""}--match-set ${name} ${flags.join(",")}`);
    this.log?.push(Op.Set, name, flags, negated);
    return this;
  }

  /** `-m ipvs --vaddr IP --vproto PROTOCOL --vport PORT`: the packet's IPVS virtual service. */
  ipvsVirtualService(ip: string, protocol: "tcp" | "udp" | "sctp", port: number): this {
    this.#address(ip, false, "--vaddr");
    this.#word(`-m ipvs --vaddr ${ip} --vproto ${protocol} --vport ${port}`);
    this.log?.push(Op.IpvsVirtualService, ip, protocol, port);
    return this;
  }

  // ---- targets: each finishes the rule ----

  /** `-j CHAIN` (a user chain). */
  jump(chain: string): void {
    this.text.write(" -j ");
    this.text.write(chain);
    this.log?.push(Op.Jump, chain);
    this.#end();
  }

  /** `-j ACCEPT` / `DROP` / `RETURN`. */
  verdict(v: Verdict): void {
    this.text.write(" -j ");
    this.text.write(v);
    this.log?.push(Op.Verdict, v);
    this.#end();
  }

  /** `-j REJECT` (the family's default `--reject-with`). */
  reject(): void {
    this.text.write(" -j REJECT");
    this.log?.push(Op.Reject);
    this.#end();
  }

  /** `-j DNAT --to-destination IP:PORT` (`[IP]:PORT` for IPv6). */
  dnat(ip: string, port: number): void {
    this.#address(ip, false, "--to-destination");
    const v6 = this.values.family === "IPv6";
    this.text.write(v6 ? " -j DNAT --to-destination [" : " -j DNAT --to-destination ");
    this.text.write(ip);
    this.text.write(v6 ? "]:" : ":");
    this.text.writeNumber(port);
    this.log?.push(Op.Dnat, ip, port);
    this.#end();
  }

  /** `-j MASQUERADE [--random-fully]`. */
  masquerade(randomFully: boolean): void {
    this.text.write(randomFully ? " -j MASQUERADE --random-fully" : " -j MASQUERADE");
    this.log?.push(Op.Masquerade, randomFully);
    this.#end();
  }

  /** `-j MARK --or-mark V` / `--xor-mark V` (V spelled as the writer does). */
  mark(op: "or-mark" | "xor-mark", value: number, spelled = hex(value)): void {
    this.#word(`-j MARK --${op} ${spelled}`);
    this.log?.push(Op.Mark, op, value);
    this.#end();
  }

  /** Any other target, with the words that write it (`-j NAME …`). */
  target(t: Target, words: string): void {
    this.#word(words);
    this.log?.push(Op.Target, t);
    this.#end();
  }

  /** A rule without a target (it only counts). */
  end(): void {
    this.log?.push(Op.End);
    this.#end();
  }

  /** One more word (or several, spaced), after a space. */
  #word(words: string): void {
    this.text.write(" ");
    this.text.write(words);
  }

  #end(): void {
    if (this.log !== undefined) this.#start = this.log.length;
    this.text.newline();
    this.#textStart = this.text.length;
    this.finish();
  }
}

/** Plays the clauses logged in `log[from, to)` (one rule's) on `rule`, which finishes it. */
export function replayRule(
  log: readonly unknown[],
  from: number,
  to: number,
  rule: TypedRuleBuilder,
): void {
  let i = from;
  // Arguments are read back in the types they were logged with (see RuleBuilder).
  const a = (): never => log[i++] as never;
  while (i < to) {
    const op: Op = a();
    switch (op) {
      case Op.Match:
        rule.match(a());
        break;
      case Op.Comment:
        rule.comment(a());
        break;
      case Op.PortModule:
        rule.portModule(a());
        break;
      case Op.Protocol:
        rule.protocol(a());
        break;
      case Op.Source:
        rule.source(a(), a());
        break;
      case Op.Destination:
        rule.destination(a(), a());
        break;
      case Op.InInterface:
        rule.inInterface(a(), a());
        break;
      case Op.OutInterface:
        rule.outInterface(a(), a());
        break;
      case Op.Dport:
        rule.dport(a());
        break;
      case Op.MarkMatch:
        rule.markMatch(a(), a(), a());
        break;
      case Op.Addrtype:
        rule.addrtype(a(), a(), a());
        break;
      case Op.Ctstate:
        rule.ctstate(a(), a());
        break;
      case Op.Probability:
        rule.probability(a());
        break;
      case Op.RecentSet:
        rule.recentSet(a());
        break;
      case Op.RecentCheck:
        rule.recentCheck(a(), a());
        break;
      case Op.Nfacct:
        rule.nfacct(a());
        break;
      case Op.Set:
        rule.set(a(), a(), a());
        break;
      case Op.IpvsVirtualService:
        rule.ipvsVirtualService(a(), a(), a());
        break;
      case Op.Jump:
        rule.jump(a());
        break;
      case Op.Verdict:
        rule.verdict(a());
        break;
      case Op.Reject:
        rule.reject();
        break;
      case Op.Dnat:
        rule.dnat(a(), a());
        break;
      case Op.Masquerade:
        rule.masquerade(a());
        break;
      case Op.Mark:
        rule.mark(a(), a());
        break;
      case Op.Target:
        rule.target(a());
        break;
      case Op.End:
        rule.end();
        break;
      default:
        assertNever(op);
    }
  }
}
