/**
 * A CNI portmap rule built as data and as the argument vector the plugin hands to iptables, in
 * one pass. The plugin's word order (`-m multiport -p tcp --destination-ports …`, `-p tcp
 * --dport N` with the implicit port module, `-j MARK --set-xmark V/M`) is not one the
 * netfilter rule builder writes, so each clause here appends its words and sets the typed part
 * iptables reads from them; values come from the builder's shared value maker. Its restore
 * text (`written`) is the vector quoted as iptables-save does (`formatWords`).
 *
 * The network configuration's `conditionsV4`/`conditionsV6` are the user's own iptables words:
 * they are input, read with the iptables parser when the rule goes into a table.
 */
import type { CIDR, PortRange } from "../net/index.js";
import type { SharedRuleValues } from "../netfilter/build/typed-rule-builder.js";
import type { Match, Negatable, Rule } from "../netfilter/model.js";
import { inputIssue, ValidationError } from "../issue/validation-error.js";
import { parseIptables } from "../netfilter/parse/iptables.js";
import type { Target } from "../netfilter/targets/index.js";
import type { NatRule } from "./nat-table.js";
import { formatWords } from "./rule-words.js";

/** The typed parts of a rule (no text). */
export interface RuleParts {
  readonly matches: readonly Match[];
  readonly protocol?: Negatable<string>;
  readonly source?: Negatable<CIDR>;
  readonly destination?: Negatable<CIDR>;
  readonly target?: Target;
}

/** A rule as the plugin writes it: its argument vector and the typed parts read from it. */
export interface ArgvRule {
  readonly argv: readonly string[];
  readonly parts: RuleParts;
}

const NOT = false as const;

function markMask(def: string): { value: number; mask: number } {
  const [v, m] = def.split("/");
  return { value: Number(v), mask: Number(m ?? "0xffffffff") >>> 0 };
}

export class ArgvRuleWriter {
  readonly #argv: string[] = [];
  readonly #matches: Match[] = [];
  #protocol: Negatable<string> | undefined;
  #source: Negatable<CIDR> | undefined;
  #destination: Negatable<CIDR> | undefined;

  constructor(private readonly values: SharedRuleValues) {}

  /** `-m comment --comment TEXT`. */
  comment(text: string): this {
    this.#argv.push("-m", "comment", "--comment", text);
    this.#matches.push({ module: "comment", comment: text });
    return this;
  }

  /** `-m addrtype --dst-type TYPE`. */
  dstTypeLocal(): this {
    this.#argv.push("-m", "addrtype", "--dst-type", "LOCAL");
    this.#matches.push({ module: "addrtype", dstType: { value: ["LOCAL"], negated: NOT } });
    return this;
  }

  /** `-m mark --mark V/M` (`def` as the plugin spells it). */
  mark(def: string): this {
    this.#argv.push("-m", "mark", "--mark", def);
    this.#matches.push({ module: "mark", mark: { value: markMask(def), negated: NOT } });
    return this;
  }

  /** `-m multiport -p PROTO --destination-ports P1,P2,…`. */
  multiportDestinations(protocol: string, ports: readonly number[]): this {
    this.#argv.push("-m", "multiport", "-p", protocol, "--destination-ports", ports.join(","));
    const dports: PortRange[] = ports.map((p) => this.values.portRange(p));
    this.#matches.push({ module: "multiport", dports: { value: dports, negated: NOT } });
    this.#protocol = this.values.protocol(protocol);
    return this;
  }

  /** `-p PROTO --dport PORT`: the port option loads the protocol's module where it stands. */
  protocolPort(protocol: "tcp" | "udp" | "sctp", port: number): this {
    this.#argv.push("-p", protocol, "--dport", String(port));
    this.#protocol = this.values.protocol(protocol);
    this.#matches.push(this.values.port({ module: protocol, dport: port }));
    return this;
  }

  /** `-s ADDRESS[/PREFIX]`. */
  source(address: string): this {
    this.#argv.push("-s", address);
    this.#source = this.values.address(address, NOT, "-s");
    return this;
  }

  /** `-d ADDRESS[/PREFIX]`. */
  destination(address: string): this {
    this.#argv.push("-d", address);
    this.#destination = this.values.address(address, NOT, "-d");
    return this;
  }

  /** `-j CHAIN`. */
  jump(chain: string): ArgvRule {
    this.#argv.push("-j", chain);
    return this.#end(this.values.jump(chain));
  }

  /** `-j MARK --set-xmark V/M`. */
  setXmark(def: string): ArgvRule {
    this.#argv.push("-j", "MARK", "--set-xmark", def);
    return this.#end({ kind: "MARK", ...markMask(def), op: "set-xmark" });
  }

  /** `-j MASQUERADE`. */
  masquerade(): ArgvRule {
    this.#argv.push("-j", "MASQUERADE");
    return this.#end({ kind: "MASQUERADE", random: NOT, randomFully: NOT });
  }

  /** `-j DNAT --to-destination IP:PORT` (`[IP]:PORT` for IPv6). */
  dnat(ip: string, port: number): ArgvRule {
    const v6 = this.values.family === "IPv6";
    this.#argv.push("-j", "DNAT", "--to-destination", v6 ? `[${ip}]:${port}` : `${ip}:${port}`);
    const address = this.values.address(ip, NOT, "--to-destination").value.address;
    return this.#end({
      kind: "DNAT",
      to: { ipFrom: address, ipTo: address, ports: this.values.portRange(port) },
      random: NOT,
      persistent: NOT,
    });
  }

  /** A rule without a target (an entry rule, whose jump the chain set-up adds). */
  end(): ArgvRule {
    return this.#end(undefined);
  }

  #end(target: Target | undefined): ArgvRule {
    const parts: { -readonly [K in keyof RuleParts]: RuleParts[K] } = { matches: this.#matches };
    if (this.#protocol !== undefined) parts.protocol = this.#protocol;
    if (this.#source !== undefined) parts.source = this.#source;
    if (this.#destination !== undefined) parts.destination = this.#destination;
    if (target !== undefined) parts.target = target;
    return { argv: this.#argv, parts };
  }
}

/** portmap's `conditionsV4`/`conditionsV6` words that iptables would refuse: bad input. */
export class PortmapConditionsError extends ValidationError {
  constructor(message: string) {
    super([inputIssue("invalid", message)]);
    this.name = "PortmapConditionsError";
  }
}

/** The user's condition words read as iptables does (they hold no target). */
export function readConditions(
  family: SharedRuleValues["family"],
  words: readonly string[],
): Rule | undefined {
  if (words.length === 0) return undefined;
  let rule: Rule | undefined;
  try {
    const text = `*nat\n:CONDITIONS - [0:0]\n-A CONDITIONS ${formatWords(words)}\nCOMMIT\n`;
    const rs = parseIptables(text, { file: "portmap conditions", family });
    rule = rs.tables[0]?.chains.find((c) => c.name === "CONDITIONS")?.rules[0];
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    // The message of the first problem, without the position in the text made here.
    const why = e.issues[0]?.message ?? e.message;
    throw new PortmapConditionsError(`invalid conditions ${JSON.stringify(words)}: ${why}`);
  }
  if (rule?.target !== undefined)
    throw new PortmapConditionsError(`conditions ${JSON.stringify(words)} must not hold a target`);
  return rule;
}

/**
 * The table rule of `r` with the conditions' words and parts after its own and `-j CHAIN`
 * last (an entry rule), or `r` as it is.
 */
export function natRule(
  r: ArgvRule,
  opts: {
    readonly conditions?: Rule;
    readonly conditionWords?: readonly string[];
    readonly jump?: Target;
    readonly jumpChain?: string;
  },
): NatRule {
  const c = opts.conditions;
  const argv = [...r.argv, ...(opts.conditionWords ?? [])];
  if (opts.jumpChain !== undefined) argv.push("-j", opts.jumpChain);
  const rule: { -readonly [K in keyof Rule]: Rule[K] } = {
    ...r.parts,
    matches: c === undefined ? r.parts.matches : [...r.parts.matches, ...c.matches],
  };
  if (c !== undefined) {
    for (const k of [
      "protocol",
      "source",
      "destination",
      "inInterface",
      "outInterface",
      "fragment",
    ] as const) {
      if (c[k] === undefined) continue;
      if (rule[k] !== undefined)
        throw new PortmapConditionsError(`conditions repeat the rule's own option ${k}`);
      (rule as Record<string, unknown>)[k] = c[k];
    }
  }
  if (opts.jump !== undefined) rule.target = opts.jump;
  rule.line = 0;
  return { ...rule, written: formatWords(argv) };
}
