/**
 * The contract every iptables extension module implements. The rule parser collects the long
 * options that follow `-m MODULE` (or `-j TARGET`) and hands them to the module's `build`; the
 * module checks them as libxtables does and returns its typed variant. `format` prints the
 * words `iptables-save` prints after `-m MODULE`; `evaluate` is the kernel's match function.
 */
import type { IPFamily } from "../../net/index.js";
import type { EvalContext, Hook, L4Protocol, MatchOutcome, Negatable, Packet } from "../model.js";
import type { FieldSet } from "../packet-fields.js";
import type { Match } from "./index.js";

/** How many argument words a long option takes, and whether `!` may precede it. */
export interface OptionSpec {
  readonly args: number;
  readonly negatable: boolean;
}

/** One long option as written: `! --dport 80` is `{ name: "--dport", negated: true, args: ["80"] }`. */
export interface ParsedOption {
  readonly name: string;
  readonly negated: boolean;
  readonly args: readonly string[];
}

/** What a module may consult while building: the rule's family and its `-p`. */
export interface BuildEnv {
  readonly family: IPFamily;
  readonly protocol: Negatable<string> | undefined;
}

/** A bad option value; the rule parser turns it into a positioned `IptablesParseError`. */
export class ExtensionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExtensionError";
  }
}

export function fail(message: string): never {
  throw new ExtensionError(message);
}

export interface MatchExtension<M extends Match> {
  readonly module: M["module"];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Spellings libxtables also accepts for an option (`--destination-port` → `--dport`). */
  readonly aliases?: Readonly<Record<string, string>>;
  build(options: readonly ParsedOption[], env: BuildEnv): M;
  /** The canonical words after `-m MODULE`, space-separated, as `iptables-save` prints them. */
  format(m: M, family: IPFamily): string;
  evaluate(m: M, packet: Packet, ctx: EvalContext): MatchOutcome;
  /**
   * The packet fields (packet-fields.ts) `evaluate` reads for this instance, and OUTSIDE when
   * it consults state beyond the packet that may change between traces. The walks share table
   * walks between branches, and the flow cache its entries between packets, by these bits.
   */
  reads(m: M): FieldSet;
  /**
   * `evaluate`'s decision made ready once per rule for the depth-first walk
   * (trace/rule-compile.ts): a number, 0 no match, 1 match, between: the probability it holds;
   * `ALWAYS` when the instance always holds (the walk leaves it out). Optional, and undefined
   * for an instance without a faster form: the walk then calls `evaluate`.
   * A property test holds both to the same answers (test/netfilter/trace/rule-compile.test.ts).
   */
  compile?(m: M): MatchCheck | undefined;
  /**
   * The list the packet's address goes into when the rule matches (`recent --set`,
   * `--update`), and which address; absent or undefined: none. The tracer keeps these per
   * branch for the "repeat within the timeout" scenario (trace/recent.ts).
   */
  records?(m: M): RecentRecord | undefined;
  /**
   * The transport protocol `evaluate` requires of every packet it matches (the protocol
   * modules: tcp, udp, sctp, icmp, icmp6); absent: none. A rule's `-p` of that protocol need
   * not be tested again (trace/rule-compile.ts).
   */
  readonly protocol?: L4Protocol;
  /**
   * The one destination port this instance can match, when there is one (`--dport 80`);
   * absent or undefined: any. The destination index keys rules by it (trace/chain-index.ts).
   */
  destinationPort?(m: M): number | undefined;
  /**
   * Built-in chains this match instance may be used in directly, when restricted (iptables-nft
   * checks this for rules in base chains only). Absent or undefined: everywhere.
   */
  allowedHooks?(m: M): readonly Hook[] | undefined;
}

/** What a match puts into a `recent` list: see MatchExtension.records. */
export interface RecentRecord {
  readonly list: string;
  readonly address: "source" | "dest";
}

/** A compiled match: 0 no match, 1 match, between: the probability it holds. */
export type MatchCheck = (packet: Packet, ctx: EvalContext) => number;

/** The compiled form of a match that always holds (a comment). */
export const ALWAYS: MatchCheck = () => 1;

/** A compiled match that holds with the same probability for every packet. */
interface ConstantCheck extends MatchCheck {
  readonly constant: number;
}

/**
 * The compiled form of a match whose outcome depends on the rule alone (`statistic --mode
 * random`): the walk reads the number instead of calling the check for every packet.
 */
export function constantCheck(probability: number): MatchCheck {
  return Object.assign((): number => probability, { constant: probability });
}

/** The probability a compiled match holds with whatever the packet, when it is fixed. */
export function constantOf(check: MatchCheck): number | undefined {
  return check === ALWAYS ? 1 : (check as Partial<ConstantCheck>).constant;
}

export const MATCH: MatchOutcome = { kind: "match" };
export const NO_MATCH: MatchOutcome = { kind: "no-match" };

export function outcome(holds: boolean): MatchOutcome {
  return holds ? MATCH : NO_MATCH;
}

/** Applies a negation flag to a plain truth value. */
export function holds(value: boolean, negated: boolean): boolean {
  return value !== negated;
}

export const ARG: OptionSpec = { args: 1, negatable: false };
export const NEG_ARG: OptionSpec = { args: 1, negatable: true };
export const FLAG: OptionSpec = { args: 0, negatable: false };
export const NEG_FLAG: OptionSpec = { args: 0, negatable: true };

/** A module's options by name (a handful at most, so a linear scan beats a Map). */
export class OptionBag {
  constructor(private readonly list: readonly ParsedOption[]) {}
  get size(): number {
    return this.list.length;
  }
  get(name: string): ParsedOption | undefined {
    for (const o of this.list) if (o.name === name) return o;
    return undefined;
  }
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }
  values(): readonly ParsedOption[] {
    return this.list;
  }
}

/** Rejects a second occurrence of an option, as libxtables does ("multiple ... flags not allowed"). */
export function single(options: readonly ParsedOption[], module: string): OptionBag {
  for (let i = 1; i < options.length; i++)
    for (let j = 0; j < i; j++)
      if ((options[i] as ParsedOption).name === (options[j] as ParsedOption).name)
        fail(`${module}: "${(options[i] as ParsedOption).name}" may be given only once`);
  return new OptionBag(options);
}

export function negatable<T>(
  o: ParsedOption | undefined,
  value: (o: ParsedOption) => T,
): Negatable<T> | undefined {
  return o === undefined ? undefined : { value: value(o), negated: o.negated };
}

export function arg(o: ParsedOption, i = 0): string {
  return o.args[i] as string;
}

/** ` ! --opt` or ` --opt`, the save form's negation placement. */
export function bang(negated: boolean): string {
  return negated ? "! " : "";
}
