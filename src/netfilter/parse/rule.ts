/**
 * One rule's words (after `-A CHAIN`) → a typed `Rule`, the way `iptables` reads its command
 * line: `!` negates the next option; `-m MODULE` loads a match whose long options may follow
 * anywhere later; an option no loaded module claims loads the `-p` protocol's match implicitly
 * (`-p tcp --dport 80`); `-j` loads a target that claims options before the matches do.
 * Modules check their options once the whole rule is read, so `-m tcp -p tcp` works too.
 */
import type { CIDR, IPFamily } from "../../net/index.js";
import type { Counters, Negatable, Rule, TableName } from "../model.js";
import {
  ExtensionError,
  type BuildEnv,
  type MatchExtension,
  type ParsedOption,
} from "../matches/extension.js";
import type { Match } from "../matches/index.js";
import { implicitModule, protocolCanonical } from "../matches/protocol.js";
import { parseAddressSpec } from "../matches/values.js";
import { matchExtension, targetExtension } from "../registry.js";
import type { TargetExtension } from "../targets/extension.js";
import type { Target } from "../targets/index.js";
import { splitRestoreWords } from "./words.js";

/** A rule problem; `parseRuleWords` callers add the file and line. */
export class RuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RuleError";
  }
}

function bad(message: string): never {
  throw new RuleError(message);
}

const NO_ARGS: readonly string[] = [];

interface Loaded {
  readonly ext: MatchExtension<Match>;
  readonly options: ParsedOption[];
}

/**
 * A parsed rule. `written` is computed on first use from the source line (a slice of the input):
 * keeping 4 million words of a 300,000-rule dump alive roughly doubles the parse time in
 * garbage collection. It is a prototype getter, so a spread copy (`{ ...rule }`) drops it and
 * the restore formatter then prints that rule canonically.
 */
export class SourceRule implements Rule {
  declare protocol?: Negatable<string>;
  declare source?: Negatable<CIDR>;
  declare destination?: Negatable<CIDR>;
  declare inInterface?: Negatable<string>;
  declare outInterface?: Negatable<string>;
  declare fragment?: Negatable<true>;
  declare target?: Target;
  declare counters?: Counters;
  declare line?: number;
  #text = "";
  #start = 0;
  #written: readonly string[] | undefined;
  constructor(readonly matches: readonly Match[]) {}
  setSource(text: string, start: number): void {
    this.#text = text;
    this.#start = start;
  }
  get written(): readonly string[] {
    this.#written ??= splitRestoreWords(this.#text).raw.slice(this.#start);
    return this.#written;
  }
}

export interface ParsedRule {
  readonly rule: SourceRule;
  /** The chain a `-j`/`-g` names (to be checked once the table is complete). */
  readonly jumpTo?: string;
}

function lookupOption(
  name: string,
  owners: readonly {
    readonly options: Readonly<Record<string, unknown>>;
    readonly aliases?: Readonly<Record<string, string>>;
  }[],
): { index: number; canonical: string } | undefined {
  // The most recently loaded module wins: `-m comment --comment a -m comment --comment b`.
  for (let k = owners.length - 1; k >= 0; k--) {
    const o = owners[k] as (typeof owners)[number];
    if (Object.hasOwn(o.options, name)) return { index: k, canonical: name };
    const alias = o.aliases?.[name];
    if (alias !== undefined) return { index: k, canonical: alias };
  }
  return undefined;
}

function lookupLoaded(
  name: string,
  loaded: readonly Loaded[],
): { index: number; canonical: string } | undefined {
  // The most recently loaded module wins: `-m comment --comment a -m comment --comment b`.
  for (let k = loaded.length - 1; k >= 0; k--) {
    const e = (loaded[k] as Loaded).ext;
    if (Object.hasOwn(e.options, name)) return { index: k, canonical: name };
    const alias = e.aliases?.[name];
    if (alias !== undefined) return { index: k, canonical: alias };
  }
  return undefined;
}

/**
 * Match and target values are immutable, so rules written alike share one instance: a
 * kube-proxy dump repeats the same comment, port and probability thousands of times, and
 * sharing keeps the parsed rule set small (most of a large parse is garbage collection).
 */
const buildCache = new Map<string, Match | Target>();
const BUILD_CACHE_LIMIT = 200_000;

function remember(key: string, v: Match | Target): void {
  if (buildCache.size >= BUILD_CACHE_LIMIT) buildCache.clear();
  buildCache.set(key, v);
}

function buildKey(owner: string, envKey: string, options: readonly ParsedOption[]): string {
  let key = `${owner}\u0000${envKey}`;
  for (const o of options) {
    key += o.negated ? "\u0001!" : "\u0001";
    key += o.name;
    for (const a of o.args) key += `\u0002${a}`;
  }
  return key;
}

function argAt(words: readonly string[], i: number, opt: string): string {
  return i < words.length ? (words[i] as string) : bad(`option "${opt}" requires an argument`);
}

function noNeg(neg: boolean, opt: string): void {
  if (neg) bad(`"!" cannot be used with "${opt}"`);
}

function ifaceName(w: string): string {
  if (w.length === 0 || w.length > 15) bad(`invalid interface name "${w}"`);
  return w;
}

/**
 * Parses `words[start..]`. Throws `RuleError` (plain words) for problems; an extension's own
 * complaint comes back as `RuleError` too.
 */
export function parseRuleWords(
  words: readonly string[],
  start: number,
  family: IPFamily,
  table: TableName,
  counters: Counters | undefined,
): ParsedRule {
  let protocol: Negatable<string> | undefined;
  let source: Negatable<CIDR> | undefined;
  let destination: Negatable<CIDR> | undefined;
  let inInterface: Negatable<string> | undefined;
  let outInterface: Negatable<string> | undefined;
  let fragment: Negatable<true> | undefined;
  let ruleCounters = counters;
  const loaded: Loaded[] = [];
  let targetExt: TargetExtension<Target> | undefined;
  const targetOptions: ParsedOption[] = [];
  let jumpTo: string | undefined;
  let goto = false;
  let neg = false;
  const n = words.length;
  let i = start;
  while (i < n) {
    const w = words[i] as string;
    if (w === "!") {
      if (neg) bad(`multiple "!" flags not allowed`);
      neg = true;
      i++;
      continue;
    }
    switch (w) {
      case "-p":
      case "--protocol": {
        if (protocol !== undefined) bad(`multiple -p flags not allowed`);
        const v = argAt(words, i + 1, w);
        const c = protocolCanonical(v);
        if (c === undefined) bad(`unknown protocol "${v}" specified`);
        if (c === "all" && neg) bad(`rule would never match protocol`);
        protocol = { value: c, negated: neg };
        i += 2;
        break;
      }
      case "-s":
      case "--source":
      case "--src": {
        if (source !== undefined) bad(`multiple -s flags not allowed`);
        const v = argAt(words, i + 1, w);
        if (v.includes(","))
          bad(`multiple addresses in "${v}" are not supported (they expand to several rules)`);
        source = { value: parseAddressSpec(v, family, "-s"), negated: neg };
        i += 2;
        break;
      }
      case "-d":
      case "--destination":
      case "--dst": {
        if (destination !== undefined) bad(`multiple -d flags not allowed`);
        const v = argAt(words, i + 1, w);
        if (v.includes(","))
          bad(`multiple addresses in "${v}" are not supported (they expand to several rules)`);
        destination = { value: parseAddressSpec(v, family, "-d"), negated: neg };
        i += 2;
        break;
      }
      case "-i":
      case "--in-interface":
        if (inInterface !== undefined) bad(`multiple -i flags not allowed`);
        inInterface = { value: ifaceName(argAt(words, i + 1, w)), negated: neg };
        i += 2;
        break;
      case "-o":
      case "--out-interface":
        if (outInterface !== undefined) bad(`multiple -o flags not allowed`);
        outInterface = { value: ifaceName(argAt(words, i + 1, w)), negated: neg };
        i += 2;
        break;
      case "-f":
      case "--fragment":
        if (family !== "IPv4") bad(`"-f" is not supported for IPv6 (use -m frag)`);
        if (fragment !== undefined) bad(`multiple -f flags not allowed`);
        fragment = { value: true, negated: neg };
        i += 1;
        break;
      case "-m":
      case "--match": {
        noNeg(neg, w);
        const name = argAt(words, i + 1, w);
        const ext = matchExtension(name);
        if (ext === undefined) bad(`unknown match "${name}" (not modelled by kube-netsim)`);
        loaded.push({ ext, options: [] });
        i += 2;
        break;
      }
      case "-j":
      case "--jump":
      case "-g":
      case "--goto": {
        noNeg(neg, w);
        if (targetExt !== undefined || jumpTo !== undefined)
          bad(`multiple -j/-g flags not allowed`);
        const name = argAt(words, i + 1, w);
        goto = w === "-g" || w === "--goto";
        const ext = goto ? undefined : targetExtension(name);
        if (ext !== undefined) targetExt = ext;
        else {
          if (name === "" || name.startsWith("-")) bad(`invalid target name "${name}"`);
          jumpTo = name;
        }
        i += 2;
        break;
      }
      case "-c":
      case "--set-counters": {
        noNeg(neg, w);
        const p = argAt(words, i + 1, w);
        const b = argAt(words, i + 2, w);
        if (!/^[0-9]+$/.test(p) || !/^[0-9]+$/.test(b)) bad(`bad counters "${p} ${b}"`);
        ruleCounters = { packets: BigInt(p), bytes: BigInt(b) };
        i += 3;
        break;
      }
      default: {
        if (!w.startsWith("-") || w.length < 2) bad(`bad argument "${w}"`);
        let owner: { options: ParsedOption[] } | undefined;
        let canonical = w;
        let spec;
        if (targetExt !== undefined) {
          const t = lookupOption(w, [targetExt]);
          if (t !== undefined) {
            owner = { options: targetOptions };
            canonical = t.canonical;
            spec = targetExt.options[canonical];
          }
        }
        if (owner === undefined) {
          let found = lookupLoaded(w, loaded);
          if (found === undefined && protocol !== undefined && !protocol.negated) {
            const implicit = implicitModule(protocol.value);
            const ext = implicit === undefined ? undefined : matchExtension(implicit);
            if (
              ext !== undefined &&
              lookupOption(w, [ext]) !== undefined &&
              !loaded.some((l) => l.ext === ext)
            ) {
              loaded.push({ ext, options: [] });
              found = lookupOption(w, [ext]);
              if (found !== undefined)
                found = { index: loaded.length - 1, canonical: found.canonical };
            }
          }
          if (found === undefined) bad(`unknown option "${w}"`);
          const l = loaded[found.index] as Loaded;
          owner = l;
          canonical = found.canonical;
          spec = l.ext.options[canonical];
        }
        if (spec === undefined) bad(`unknown option "${w}"`);
        if (neg && !spec.negatable) bad(`option "${w}" cannot be inverted`);
        if (i + spec.args >= n) bad(`option "${w}" requires an argument`);
        const args =
          spec.args === 0
            ? NO_ARGS
            : spec.args === 1
              ? [words[i + 1] as string]
              : words.slice(i + 1, i + 1 + spec.args);
        owner.options.push({ name: canonical, negated: neg, args });
        i += 1 + spec.args;
      }
    }
    neg = false;
  }
  if (neg) bad(`"!" at the end of the rule negates nothing`);
  // iptables-nft cannot express "not in /0" (the kernel answers EINVAL).
  if (source?.negated === true && source.value.prefix === 0)
    bad(`"! -s" with a /0 prefix is not supported by the kernel`);
  if (destination?.negated === true && destination.value.prefix === 0)
    bad(`"! -d" with a /0 prefix is not supported by the kernel`);
  const env: BuildEnv = { family, protocol };
  const matches: Match[] = [];
  let target: Target | undefined;
  try {
    const envKey =
      protocol === undefined ? family : `${family} ${protocol.negated ? "!" : ""}${protocol.value}`;
    for (const l of loaded) {
      const key = buildKey(l.ext.module, envKey, l.options);
      let m = buildCache.get(key) as Match | undefined;
      if (m === undefined) {
        m = l.ext.build(l.options, env);
        remember(key, m);
      }
      matches.push(m);
    }
    if (targetExt !== undefined) {
      if (targetExt.tables !== undefined && !targetExt.tables.includes(table))
        bad(`target "${targetExt.name}" is only valid in the ${targetExt.tables.join("/")} table`);
      const key = buildKey(`-j ${targetExt.name}`, envKey, targetOptions);
      let t = buildCache.get(key) as Target | undefined;
      if (t === undefined) {
        t = targetExt.build(targetOptions, env);
        remember(key, t);
      }
      target = t;
    } else if (jumpTo !== undefined) {
      const key = `${goto ? "-g" : "-j"} ${jumpTo}`;
      let t = buildCache.get(key) as Target | undefined;
      if (t === undefined) {
        t = { kind: "jump", chain: jumpTo, goto };
        remember(key, t);
      }
      target = t;
    }
  } catch (e) {
    if (e instanceof ExtensionError) bad(e.message);
    throw e;
  }
  const rule = new SourceRule(matches);
  if (protocol !== undefined) rule.protocol = protocol;
  if (source !== undefined) rule.source = source;
  if (destination !== undefined) rule.destination = destination;
  if (inInterface !== undefined) rule.inInterface = inInterface;
  if (outInterface !== undefined) rule.outInterface = outInterface;
  if (fragment !== undefined) rule.fragment = fragment;
  if (target !== undefined) rule.target = target;
  if (ruleCounters !== undefined) rule.counters = ruleCounters;
  return jumpTo === undefined ? { rule } : { rule, jumpTo };
}
