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
import { parseAddressSpecUncached } from "../matches/values.js";
import { matchExtension, targetExtension, UNMODELLED_TARGETS } from "../registry.js";
import type { TargetExtension } from "../targets/extension.js";
import type { Target } from "../targets/index.js";
import { AMBIGUOUS, expandAbbreviation, isCoreOption } from "./abbrev.js";
import { BuildCache } from "./build-cache.js";
import { SharedValues } from "./shared-values.js";

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
  /** NO_OPTIONS until the first option (an array grown by push keeps room for 16 more). */
  options: ParsedOption[];
}

const NO_OPTIONS = Object.freeze([]) as unknown as ParsedOption[];

/** Adds `o` to `list` (NO_OPTIONS: a new array of one). */
function withOption(list: ParsedOption[], o: ParsedOption): ParsedOption[] {
  if (list === NO_OPTIONS) return [o];
  list.push(o);
  return list;
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

const DASH = 45;

/**
 * Long option `w` spelt out if it is cut short (see abbrev.ts): as written if some option has
 * that name, else the option it starts among iptables' own, the target's and the loaded
 * modules', then the `-p` protocol's match.
 */
function spelledOut(
  w: string,
  target: TargetExtension<Target> | undefined,
  loaded: readonly Loaded[],
  protocol: Negatable<string> | undefined,
): string | typeof AMBIGUOUS {
  if (isCoreOption(w)) return w;
  if (target !== undefined && canonicalOption(w, target) !== undefined) return w;
  if (loadedIndex(w, loaded) !== -1) return w;
  // A module loaded twice is one set of options (its last copy takes them, as spelt out).
  const owners = [target, ...new Set(loaded.map((l) => l.ext))];
  const known = expandAbbreviation(w, owners);
  if (known !== undefined) return known;
  const implicit =
    protocol === undefined || protocol.negated ? undefined : implicitModule(protocol.value);
  const ext = implicit === undefined ? undefined : matchExtension(implicit);
  if (ext === undefined || canonicalOption(w, ext) !== undefined) return w;
  return expandAbbreviation(w, [...owners, ext]) ?? w;
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
/**
 * `-p`, `-s` and `-d` values are immutable too and repeat across rules (every kube-proxy rule
 * has `-p tcp`), so their `Negatable` wrappers are shared as well.
 */
const protocols = [new Map<string, Negatable<string>>(), new Map<string, Negatable<string>>()];

function negatableProtocol(value: string, negated: boolean): Negatable<string> {
  const cache = protocols[negated ? 1 : 0] as Map<string, Negatable<string>>;
  let p = cache.get(value);
  if (p === undefined) cache.set(value, (p = { value, negated }));
  return p;
}

/** `-s`/`-d` values by family, then negated or not, then by the address as written. */
const addresses = {
  IPv4: [newAddressCache(), newAddressCache()],
  IPv6: [newAddressCache(), newAddressCache()],
};

function newAddressCache(): SharedValues<Negatable<CIDR>> {
  return new SharedValues<Negatable<CIDR>>(BUILD_CACHE_LIMIT);
}

/** `-s`/`-d` (`what`) `text`, negated or not. */
export function negatableAddress(
  text: string,
  family: IPFamily,
  negated: boolean,
  what: string,
): Negatable<CIDR> {
  const cache = addresses[family][negated ? 1 : 0] as SharedValues<Negatable<CIDR>>;
  let a = cache.get(text);
  if (a === undefined) {
    a = { value: parseAddressSpecUncached(text, family, what), negated };
    cache.set(text, a);
  }
  return a;
}

export const NO_MATCHES: readonly Match[] = Object.freeze([]);

/**
 * Match lists made lately, most recent first. A rule's list is immutable too, and rules alike
 * follow each other (every endpoint chain of a service: `[comment]`, then `[comment, tcp]`), so
 * a list equal to a recent one (the same shared values) is that one.
 */
const recent: (readonly Match[])[] = [];
const RECENT = 4;

/** The list of `n` (1 to 3) matches `m0`, `m1`, `m2`: a recent one, or a new exact-size array. */
export function recentMatches(
  n: number,
  m0: Match,
  m1: Match | undefined,
  m2: Match | undefined,
): readonly Match[] {
  for (let k = 0; k < recent.length; k++) {
    const a = recent[k] as readonly Match[];
    if (a.length === n && a[0] === m0 && a[1] === m1 && a[2] === m2) {
      if (k > 0) {
        recent.splice(k, 1);
        recent.unshift(a);
      }
      return a;
    }
  }
  const a = n === 1 ? [m0] : n === 2 ? [m0, m1 as Match] : [m0, m1 as Match, m2 as Match];
  recent.unshift(a);
  if (recent.length > RECENT) recent.pop();
  return a;
}

/**
 * What one word of a rule was, as `parseRuleWords` read it (for shapes.ts): a literal word
 * (`!`, `-p tcp`, `-m comment`, an option's name, a target's name), or a value: `-s`/`-d`,
 * `-i`/`-o`, the chain of `-j`/`-g`, or argument `arg` of option `option` of loaded module
 * `owner` (-1: the target).
 */
export type WordRole =
  | { readonly kind: "literal" }
  | { readonly kind: "source" | "destination" | "in" | "out" | "jump" }
  | { readonly kind: "arg"; readonly owner: number; readonly option: number; readonly arg: number };

/** How `parseRuleWords` read a rule: one role per word, and what it loaded. */
export interface RuleReading {
  readonly roles: WordRole[];
  /** The modules in the order loaded (the rule's matches), with their options. */
  modules: readonly {
    readonly ext: MatchExtension<Match>;
    readonly options: readonly ParsedOption[];
  }[];
  target:
    | { readonly ext: TargetExtension<Target>; readonly options: readonly ParsedOption[] }
    | undefined;
  goto: boolean;
  /** `-c`, or words skipped after a comment: a reading that no other rule can reuse. */
  unique: boolean;
}

const LITERAL: WordRole = { kind: "literal" };

function argAt(words: readonly string[], i: number, opt: string): string {
  return i < words.length ? (words[i] as string) : bad(`option "${opt}" requires an argument`);
}

function noNeg(neg: boolean, opt: string): void {
  if (neg) bad(`"!" cannot be used with "${opt}"`);
}

type Parts = { -readonly [K in keyof Rule]: Rule[K] };

/**
 * A rule of these parts, read from a line whose words after the chain are `written`. Absent
 * parts are not set. Rules are object literals, not class instances: V8 allocates the objects of
 * a literal that mostly outlive their first garbage collections straight in the old generation
 * (allocation-site pretenuring), where class instances are copied through the young generation
 * twice; a 300,000-rule parse keeps every rule (the `parts` object itself is short-lived). Each common kind of rule (a target, no
 * interfaces, no fragment, no counters) has a literal of its own, so that its fields are all in
 * the object; the others add their fields in the same order.
 */
/** The parts of a rule as read; absent ones are undefined (none is left out). */
export interface RuleParts {
  readonly matches: readonly Match[];
  readonly protocol: Negatable<string> | undefined;
  readonly source: Negatable<CIDR> | undefined;
  readonly destination: Negatable<CIDR> | undefined;
  readonly inInterface: Negatable<string> | undefined;
  readonly outInterface: Negatable<string> | undefined;
  readonly fragment: Negatable<true> | undefined;
  readonly target: Target | undefined;
  readonly counters: Counters | undefined;
  /** The text of the words after the chain (see `Rule.written`). */
  readonly written: string;
  readonly line: number;
}

export function makeRule(parts: RuleParts): Rule {
  const {
    matches,
    protocol,
    source,
    destination,
    inInterface,
    outInterface,
    fragment,
    target,
    counters,
    written,
    line,
  } = parts;
  if (
    target !== undefined &&
    inInterface === undefined &&
    outInterface === undefined &&
    fragment === undefined &&
    counters === undefined
  ) {
    const p = protocol as Negatable<string>;
    const s = source as Negatable<CIDR>;
    const d = destination as Negatable<CIDR>;
    const kind =
      (protocol === undefined ? 0 : 4) |
      (source === undefined ? 0 : 2) |
      (destination === undefined ? 0 : 1);
    switch (kind) {
      case 0:
        return { matches, written, target, line };
      case 1:
        return { matches, written, destination: d, target, line };
      case 2:
        return { matches, written, source: s, target, line };
      case 3:
        return { matches, written, source: s, destination: d, target, line };
      case 4:
        return { matches, written, protocol: p, target, line };
      case 5:
        return { matches, written, protocol: p, destination: d, target, line };
      case 6:
        return { matches, written, protocol: p, source: s, target, line };
      default:
        return { matches, written, protocol: p, source: s, destination: d, target, line };
    }
  }
  const rule: Parts = { matches, written };
  if (protocol !== undefined) rule.protocol = protocol;
  if (source !== undefined) rule.source = source;
  if (destination !== undefined) rule.destination = destination;
  if (inInterface !== undefined) rule.inInterface = inInterface;
  if (outInterface !== undefined) rule.outInterface = outInterface;
  if (fragment !== undefined) rule.fragment = fragment;
  if (target !== undefined) rule.target = target;
  if (counters !== undefined) rule.counters = counters;
  rule.line = line;
  return rule;
}

/** iptables-nft cannot express "not in /0" (the kernel answers EINVAL). */
export function checkNegatedPrefixes(
  source: Negatable<CIDR> | undefined,
  destination: Negatable<CIDR> | undefined,
): void {
  if (source?.negated === true && source.value.prefix === 0)
    bad(`"! -s" with a /0 prefix is not supported by the kernel`);
  if (destination?.negated === true && destination.value.prefix === 0)
    bad(`"! -d" with a /0 prefix is not supported by the kernel`);
}

export function ifaceName(w: string): string {
  if (w.length === 0 || w.length > 15) bad(`invalid interface name "${w}"`);
  return w;
}

/** What `parseRuleWords` reads, and what it needs to know for it. */
export interface RuleWords {
  /** The line's words; the rule's start at `start` (after `-A CHAIN`). */
  readonly words: readonly string[];
  readonly start: number;
  readonly family: IPFamily;
  readonly table: TableName;
  /** `[packets:bytes]` written before the command. */
  readonly counters: Counters | undefined;
  /** The `upstream-test` dialect: skip bare words after a `--comment VALUE`. */
  readonly commentTail: boolean;
  /** The target of `-j CHAIN` / `-g CHAIN` for a name that is not a target extension. */
  readonly jumpTarget: (chain: string, goto: boolean) => Target;
  /** The text of the words (see `Rule.written`). */
  readonly written: string;
  readonly line: number;
  /** Filled with what was read, for shapes.ts to learn the rule's shape. */
  readonly reading: RuleReading | undefined;
}

/**
 * Parses `words[start..]` (see `RuleWords`). Throws `RuleError` (plain words) for problems; an extension's own
 * complaint comes back as `RuleError` too. With `commentTail` (the `upstream-test` dialect),
 * bare words right after a `--comment VALUE` are skipped, as kube-proxy's test fake skips them:
 * `--comment kubernetes service portals` is the comment "kubernetes". `jumpTarget` gives the
 * target of `-j CHAIN` / `-g CHAIN` for a name that is not a target extension. The rule keeps
 * `written` (the text of the words, see `Rule.written`) and `line`.
 */
export function parseRuleWords(input: RuleWords): Rule {
  const {
    words: writtenWords,
    start,
    family,
    table,
    counters,
    commentTail,
    jumpTarget,
    written,
    line,
    reading,
  } = input;
  const roles = reading?.roles;
  let protocol: Negatable<string> | undefined;
  let source: Negatable<CIDR> | undefined;
  let destination: Negatable<CIDR> | undefined;
  let inInterface: Negatable<string> | undefined;
  let outInterface: Negatable<string> | undefined;
  let fragment: Negatable<true> | undefined;
  let ruleCounters = counters;
  const loaded: Loaded[] = [];
  let targetExt: TargetExtension<Target> | undefined;
  let targetOptions = NO_OPTIONS;
  let jumpTo: string | undefined;
  let goto = false;
  let neg = false;
  // Whether the previous option was `--comment` and commentTail is on.
  let afterComment = false;
  let words = writtenWords;
  let n = words.length;
  let i = start;
  while (i < n) {
    let w = words[i] as string;
    let nextAfterComment = false;
    // getopt_long's `--option=value`: the value is the option's (first) argument. Checked on
    // the kernel for every long option (test/netfilter/kernel-option-spellings.test.ts).
    let inline = false;
    const whole = w;
    if (w.length > 2 && w.charCodeAt(0) === DASH && w.charCodeAt(1) === DASH) {
      const eq = w.indexOf("=");
      if (eq > 2) {
        words = [...words.slice(0, i), w.slice(0, eq), w.slice(eq + 1), ...words.slice(i + 1)];
        n = words.length;
        w = w.slice(0, eq);
        inline = true;
        // Its words no longer line up with the written ones: no shape to share.
        if (reading !== undefined) reading.unique = true;
      }
      const full = spelledOut(w, targetExt, loaded, protocol);
      if (full === AMBIGUOUS) bad(`option "${w}" is ambiguous`);
      w = full;
    }
    if (w === "!") {
      if (neg) bad(`multiple "!" flags not allowed`);
      neg = true;
      roles?.push(LITERAL);
      i++;
      continue;
    }
    switch (w) {
      case "-p":
      case "--protocol": {
        if (protocol !== undefined) bad(`multiple -p flags not allowed`);
        const v = inline ? whole : argAt(words, i + 1, w);
        const c = protocolCanonical(v);
        if (c === undefined) bad(`unknown protocol "${v}" specified`);
        if (c === "all" && neg) bad(`rule would never match protocol`);
        protocol = negatableProtocol(c, neg);
        roles?.push(LITERAL, LITERAL);
        i += 2;
        break;
      }
      case "-s":
      case "--source":
      case "--src": {
        if (source !== undefined) bad(`multiple -s flags not allowed`);
        const v = inline ? whole : argAt(words, i + 1, w);
        if (v.includes(","))
          bad(`multiple addresses in "${v}" are not supported (they expand to several rules)`);
        source = negatableAddress(v, family, neg, "-s");
        roles?.push(LITERAL, { kind: "source" });
        i += 2;
        break;
      }
      case "-d":
      case "--destination":
      case "--dst": {
        if (destination !== undefined) bad(`multiple -d flags not allowed`);
        const v = inline ? whole : argAt(words, i + 1, w);
        if (v.includes(","))
          bad(`multiple addresses in "${v}" are not supported (they expand to several rules)`);
        destination = negatableAddress(v, family, neg, "-d");
        roles?.push(LITERAL, { kind: "destination" });
        i += 2;
        break;
      }
      case "-i":
      case "--in-interface":
        if (inInterface !== undefined) bad(`multiple -i flags not allowed`);
        inInterface = { value: ifaceName(inline ? whole : argAt(words, i + 1, w)), negated: neg };
        roles?.push(LITERAL, { kind: "in" });
        i += 2;
        break;
      case "-o":
      case "--out-interface":
        if (outInterface !== undefined) bad(`multiple -o flags not allowed`);
        outInterface = { value: ifaceName(inline ? whole : argAt(words, i + 1, w)), negated: neg };
        roles?.push(LITERAL, { kind: "out" });
        i += 2;
        break;
      case "-f":
      case "--fragment":
        if (inline) bad(`option "${w}" doesn't allow an argument`);
        if (family !== "IPv4") bad(`"-f" is not supported for IPv6 (use -m frag)`);
        if (fragment !== undefined) bad(`multiple -f flags not allowed`);
        fragment = { value: true, negated: neg };
        roles?.push(LITERAL);
        i += 1;
        break;
      case "-m":
      case "--match": {
        noNeg(neg, w);
        const name = argAt(words, i + 1, w);
        const ext = matchExtension(name);
        if (ext === undefined) bad(`unknown match "${name}" (not modelled by kube-netsim)`);
        loaded.push({ ext, options: NO_OPTIONS });
        roles?.push(LITERAL, LITERAL);
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
        goto = w === "-g" || w === "--goto";
        // iptables reads -j's argument from argv, not getopt's optarg: `--jump=X` jumps to
        // "--jump=X" (so do -p -s -d -i -o); -g, -m and extension options take the value.
        const name = inline && !goto ? whole : argAt(words, i + 1, w);
        const ext = goto ? undefined : targetExtension(name);
        if (ext !== undefined) targetExt = ext;
        else {
          if (name === "" || name.startsWith("-")) bad(`invalid target name "${name}"`);
          jumpTo = name;
        }
        roles?.push(LITERAL, ext === undefined ? { kind: "jump" } : LITERAL);
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
        if (reading !== undefined) reading.unique = true;
        i += 3;
        break;
      }
      default: {
        if (afterComment && !neg && !w.startsWith("-")) {
          if (reading !== undefined) reading.unique = true;
          i++;
          continue;
        }
        if (!w.startsWith("-") || w.length < 2) bad(`bad argument "${w}"`);
        // The module that takes the option (undefined: the target).
        let owner: Loaded | undefined;
        let canonical: string | undefined;
        let spec: OptionSpec | undefined;
        if (targetExt !== undefined) {
          canonical = canonicalOption(w, targetExt);
          if (canonical !== undefined) spec = targetExt.options[canonical];
        }
        if (canonical === undefined) {
          let k = loadedIndex(w, loaded);
          if (k === -1 && protocol !== undefined && !protocol.negated) {
            const implicit = implicitModule(protocol.value);
            const ext = implicit === undefined ? undefined : matchExtension(implicit);
            if (
              ext !== undefined &&
              canonicalOption(w, ext) !== undefined &&
              !loaded.some((l) => l.ext === ext)
            ) {
              loaded.push({ ext, options: NO_OPTIONS });
              k = loaded.length - 1;
            }
          }
          if (k === -1 && jumpTo !== undefined && UNMODELLED_TARGETS.has(jumpTo))
            bad(`target "${jumpTo}" is not modelled by kube-netsim (option "${w}")`);
          if (k === -1) bad(`unknown option "${w}"`);
          const l = loaded[k] as Loaded;
          const c = canonicalOption(w, l.ext) as string;
          canonical = c;
          owner = l;
          spec = l.ext.options[c];
        }
        if (spec === undefined) bad(`unknown option "${w}"`);
        if (inline && spec.args === 0) bad(`option "${w}" doesn't allow an argument`);
        if (neg && !spec.negatable) bad(`option "${w}" cannot be inverted`);
        if (i + spec.args >= n) bad(`option "${w}" requires an argument`);
        const args =
          spec.args === 0
            ? NO_ARGS
            : spec.args === 1
              ? [words[i + 1] as string]
              : words.slice(i + 1, i + 1 + spec.args);
        const option: ParsedOption = { name: canonical, negated: neg, args };
        if (owner === undefined) targetOptions = withOption(targetOptions, option);
        else owner.options = withOption(owner.options, option);
        if (roles !== undefined) {
          const ownerIndex = owner === undefined ? -1 : loaded.indexOf(owner);
          const optionIndex = (owner === undefined ? targetOptions : owner.options).length - 1;
          roles.push(LITERAL);
          for (let a = 0; a < spec.args; a++)
            roles.push({ kind: "arg", owner: ownerIndex, option: optionIndex, arg: a });
        }
        i += 1 + spec.args;
        nextAfterComment = commentTail && canonical === "--comment";
      }
    }
    neg = false;
    afterComment = nextAfterComment;
  }
  if (neg) bad(`"!" at the end of the rule negates nothing`);
  checkNegatedPrefixes(source, destination);
  // Only a value missing from the build cache needs it.
  let env: BuildEnv | undefined;
  let matches = NO_MATCHES;
  let target: Target | undefined;
  try {
    const build = (l: Loaded): Match => {
      let m = buildCache.lookup(l.ext, family, protocol, l.options) as Match | undefined;
      if (m === undefined) {
        m = l.ext.build(l.options, (env ??= { family, protocol }));
        buildCache.store(m);
      }
      return m;
    };
    const l0 = loaded[0];
    const l1 = loaded[1];
    const l2 = loaded[2];
    if (l0 !== undefined)
      if (loaded.length > 3) matches = loaded.map(build);
      else {
        const m0 = build(l0);
        const m1 = l1 === undefined ? undefined : build(l1);
        matches = recentMatches(loaded.length, m0, m1, l2 === undefined ? undefined : build(l2));
      }
    if (targetExt !== undefined) {
      if (targetExt.tables !== undefined && !targetExt.tables.includes(table))
        bad(`target "${targetExt.name}" is only valid in the ${targetExt.tables.join("/")} table`);
      const refused = targetExt.refusedIn?.[table];
      if (refused !== undefined) bad(refused);
      let t = buildCache.lookup(targetExt, family, protocol, targetOptions) as Target | undefined;
      if (t === undefined) {
        t = targetExt.build(targetOptions, (env ??= { family, protocol }));
        buildCache.store(t);
      }
      target = t;
    } else if (jumpTo !== undefined) target = jumpTarget(jumpTo, goto);
  } catch (e) {
    if (e instanceof ExtensionError) bad(e.message);
    throw e;
  }
  const rule = makeRule({
    matches,
    protocol,
    source,
    destination,
    inInterface,
    outInterface,
    fragment,
    target,
    counters: ruleCounters,
    written,
    line,
  });
  if (reading !== undefined) {
    reading.modules = loaded;
    reading.target =
      targetExt === undefined ? undefined : { ext: targetExt, options: targetOptions };
    reading.goto = goto;
  }
  return rule;
}
