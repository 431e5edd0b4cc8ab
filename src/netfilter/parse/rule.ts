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
  type OptionSpec,
  type ParsedOption,
} from "../matches/extension.js";
import type { Match } from "../matches/index.js";
import { implicitModule, protocolCanonical } from "../matches/protocol.js";
import { parseAddressSpec } from "../matches/values.js";
import { matchExtension, targetExtension } from "../registry.js";
import type { TargetExtension } from "../targets/extension.js";
import type { Target } from "../targets/index.js";
import { BuildCache } from "./build-cache.js";
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
 * A parsed rule. `written` is computed on first use from the source line (offsets into the input):
 * keeping 4 million words of a 300,000-rule dump alive roughly doubles the parse time in
 * garbage collection. It is an own enumerable accessor (one shared getter, so every rule keeps
 * the same hidden class), so a spread copy (`{ ...rule }`) or `Object.keys` sees it like any
 * other field: the copy gets the words as a plain property and still prints as written.
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
  declare readonly written: readonly string[];
  /** The rule's line is #text[#from, #to) (offsets into the whole input, not a copy). */
  #text = "";
  #from = 0;
  #to = 0;
  /** Index of the first word after `-A CHAIN`. */
  #start = 0;
  #written: readonly string[] | undefined;
  static readonly #writtenProperty: PropertyDescriptor = {
    get(this: SourceRule): readonly string[] {
      this.#written ??= splitRestoreWords(this.#text.slice(this.#from, this.#to)).raw.slice(
        this.#start,
      );
      return this.#written;
    },
    enumerable: true,
    configurable: true,
  };
  constructor(readonly matches: readonly Match[]) {
    Object.defineProperty(this, "written", SourceRule.#writtenProperty);
  }
  /** The rule was read from `text.slice(from, to)`, its own words starting at word `start`. */
  setSource(text: string, from: number, to: number, start: number): void {
    this.#text = text;
    this.#from = from;
    this.#to = to;
    this.#start = start;
  }
}

export interface ParsedRule {
  readonly rule: SourceRule;
  /** The chain a `-j`/`-g` names (to be checked once the table is complete). */
  readonly jumpTo?: string;
}

/** The canonical spelling of option `name` if `owner` has it (directly or as an alias). */
function canonicalOption(
  name: string,
  owner: {
    readonly options: Readonly<Record<string, unknown>>;
    readonly aliases?: Readonly<Record<string, string>>;
  },
): string | undefined {
  if (Object.hasOwn(owner.options, name)) return name;
  return owner.aliases?.[name];
}

/** The loaded module that claims option `name`, or -1. */
function loadedIndex(name: string, loaded: readonly Loaded[]): number {
  // The most recently loaded module wins: `-m comment --comment a -m comment --comment b`.
  for (let k = loaded.length - 1; k >= 0; k--)
    if (canonicalOption(name, (loaded[k] as Loaded).ext) !== undefined) return k;
  return -1;
}

/** Shared match and target values (see build-cache.ts); bounded, as it outlives a parse. */
const BUILD_CACHE_LIMIT = 200_000;
const buildCache = new BuildCache(BUILD_CACHE_LIMIT);
let jumpCache = new Map<string, Target>();
let gotoCache = new Map<string, Target>();

function jumpTarget(chain: string, goto: boolean): Target {
  const cache = goto ? gotoCache : jumpCache;
  let t = cache.get(chain);
  if (t === undefined) {
    t = { kind: "jump", chain, goto };
    if (jumpCache.size + gotoCache.size >= BUILD_CACHE_LIMIT) {
      jumpCache = new Map();
      gotoCache = new Map();
    } else cache.set(chain, t);
  }
  return t;
}

/**
 * `-p`, `-s` and `-d` values are immutable too and repeat across rules (every kube-proxy rule
 * has `-p tcp`), so their `Negatable` wrappers are shared as well.
 */
const protocols = [new Map<string, Negatable<string>>(), new Map<string, Negatable<string>>()];
let addresses = [new Map<CIDR, Negatable<CIDR>>(), new Map<CIDR, Negatable<CIDR>>()];

function negatableProtocol(value: string, negated: boolean): Negatable<string> {
  const cache = protocols[negated ? 1 : 0] as Map<string, Negatable<string>>;
  let p = cache.get(value);
  if (p === undefined) cache.set(value, (p = { value, negated }));
  return p;
}

function negatableAddress(value: CIDR, negated: boolean): Negatable<CIDR> {
  const cache = addresses[negated ? 1 : 0] as Map<CIDR, Negatable<CIDR>>;
  let a = cache.get(value);
  if (a === undefined) {
    a = { value, negated };
    if (cache.size >= BUILD_CACHE_LIMIT)
      addresses = [new Map<CIDR, Negatable<CIDR>>(), new Map<CIDR, Negatable<CIDR>>()];
    else cache.set(value, a);
  }
  return a;
}

const NO_MATCHES: readonly Match[] = Object.freeze([]);

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
 * complaint comes back as `RuleError` too. With `commentTail` (the `upstream-test` dialect),
 * bare words right after a `--comment VALUE` are skipped, as kube-proxy's test fake skips them:
 * `--comment kubernetes service portals` is the comment "kubernetes".
 */
export function parseRuleWords(
  words: readonly string[],
  start: number,
  family: IPFamily,
  table: TableName,
  counters: Counters | undefined,
  commentTail = false,
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
  // Whether the previous option was `--comment` and commentTail is on.
  let afterComment = false;
  const n = words.length;
  let i = start;
  while (i < n) {
    const w = words[i] as string;
    let nextAfterComment = false;
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
        protocol = negatableProtocol(c, neg);
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
        source = negatableAddress(parseAddressSpec(v, family, "-s"), neg);
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
        destination = negatableAddress(parseAddressSpec(v, family, "-d"), neg);
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
        if (afterComment && !neg && !w.startsWith("-")) {
          i++;
          continue;
        }
        if (!w.startsWith("-") || w.length < 2) bad(`bad argument "${w}"`);
        let options: ParsedOption[] | undefined;
        let canonical: string | undefined;
        let spec: OptionSpec | undefined;
        if (targetExt !== undefined) {
          canonical = canonicalOption(w, targetExt);
          if (canonical !== undefined) {
            options = targetOptions;
            spec = targetExt.options[canonical];
          }
        }
        if (options === undefined) {
          let k = loadedIndex(w, loaded);
          if (k === -1 && protocol !== undefined && !protocol.negated) {
            const implicit = implicitModule(protocol.value);
            const ext = implicit === undefined ? undefined : matchExtension(implicit);
            if (
              ext !== undefined &&
              canonicalOption(w, ext) !== undefined &&
              !loaded.some((l) => l.ext === ext)
            ) {
              loaded.push({ ext, options: [] });
              k = loaded.length - 1;
            }
          }
          if (k === -1) bad(`unknown option "${w}"`);
          const l = loaded[k] as Loaded;
          const c = canonicalOption(w, l.ext) as string;
          canonical = c;
          options = l.options;
          spec = l.ext.options[c];
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
        // Both branches above set canonical with options.
        options.push({ name: canonical as string, negated: neg, args });
        i += 1 + spec.args;
        nextAfterComment = commentTail && canonical === "--comment";
      }
    }
    neg = false;
    afterComment = nextAfterComment;
  }
  if (neg) bad(`"!" at the end of the rule negates nothing`);
  // iptables-nft cannot express "not in /0" (the kernel answers EINVAL).
  if (source?.negated === true && source.value.prefix === 0)
    bad(`"! -s" with a /0 prefix is not supported by the kernel`);
  if (destination?.negated === true && destination.value.prefix === 0)
    bad(`"! -d" with a /0 prefix is not supported by the kernel`);
  const env: BuildEnv = { family, protocol };
  let matches = NO_MATCHES;
  let target: Target | undefined;
  try {
    // map: an array of the exact size (a pushed-to array keeps spare room for every rule).
    if (loaded.length > 0)
      matches = loaded.map((l) => {
        let m = buildCache.lookup(l.ext, family, protocol, l.options) as Match | undefined;
        if (m === undefined) {
          m = l.ext.build(l.options, env);
          buildCache.store(m);
        }
        return m;
      });
    if (targetExt !== undefined) {
      if (targetExt.tables !== undefined && !targetExt.tables.includes(table))
        bad(`target "${targetExt.name}" is only valid in the ${targetExt.tables.join("/")} table`);
      const refused = targetExt.refusedIn?.[table];
      if (refused !== undefined) bad(refused);
      let t = buildCache.lookup(targetExt, family, protocol, targetOptions) as Target | undefined;
      if (t === undefined) {
        t = targetExt.build(targetOptions, env);
        buildCache.store(t);
      }
      target = t;
    } else if (jumpTo !== undefined) target = jumpTarget(jumpTo, goto);
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
