/**
 * Chain lookup and the destination index. A kube-proxy KUBE-SERVICES chain holds one or a
 * few rules per service, each with `-d <VIP>`: scanning it costs O(services) per packet (as it
 * does in the kernel). The index keeps, per chain with enough such rules, the rule positions
 * by exact destination address, plus the positions of every rule that is not a positive
 * host-destination match ("always" rules). A packet is only tested against the rules of its
 * destination bucket merged with the always rules, in rule order, so the walk visits the same
 * matching rules in the same order as the naive scan: a rule left out cannot match, because
 * its `-d` host address differs from the packet's destination.
 */
import { isHostCIDR, type IPAddress } from "../../net/index.js";
import type { Chain, Rule, RuleSet, TableName } from "../model.js";
import { compileTarget, matchDestinationPort } from "../registry.js";
import type { TargetApply } from "../targets/extension.js";
import type { Target } from "../targets/index.js";
import { ruleRecords } from "./recent.js";
import { compileRuleCondition, type CompiledCondition, type RuleMatcher } from "./rule-compile.js";

export type IndexKey = number | string;

export function addressKey(ip: IPAddress): IndexKey {
  return ip.family === "IPv4" ? ip.value : `6:${ip.value.toString(16)}`;
}

export interface DestinationIndex {
  /** Rules with a positive host `-d`, by address. */
  readonly buckets: ReadonlyMap<IndexKey, readonly number[]>;
  /** Rules without `-d` but with a single positive `--dport` (tcp/udp/sctp), by port. */
  readonly ports: ReadonlyMap<number, readonly number[]>;
  readonly always: readonly number[];
  /** Merged candidate lists, filled on first use per key. */
  readonly merged: Map<IndexKey, readonly number[]>;
  readonly mergedPorts: Map<number, readonly number[]>;
}

export interface CompiledChain {
  readonly table: TableName;
  readonly name: string;
  readonly policy?: "ACCEPT" | "DROP";
  readonly rules: readonly Rule[];
  /** Precomputed `table/CHAIN#n` labels. */
  readonly labels: readonly string[];
  readonly index?: DestinationIndex;
  /** Compiled rule conditions (indexed mode only; the naive walk evaluates the rules as written). */
  readonly matchers?: readonly RuleMatcher[];
  /** The compiled conditions in parts, for the fast walk's flat layout (indexed mode only). */
  readonly conditions?: readonly CompiledCondition[];
  /** Compiled targets (indexed mode only; undefined for a jump or no target). */
  readonly appliers?: readonly (TargetApply | undefined)[];
  /** Whether each rule has a `recent --set/--update` side effect to record. */
  readonly recentSets: readonly boolean[];
  /**
   * Each rule's target kind ("goto" for `-g`), or undefined without a target: an array read
   * instead of loads from rule and target objects of many shapes on the hot path.
   */
  readonly kinds: readonly (Target["kind"] | "goto" | undefined)[];
  /**
   * Jump targets by rule position, resolved on first use (`resolveJump`): one entry per rule,
   * undefined until then (and for a rule without a jump, or a missing chain).
   */
  readonly jumpTargets: (CompiledChain | undefined)[];
  /** The table's chains as written, by name (what its jumps name; see `footprint`). */
  readonly written: ReadonlyMap<string, Chain>;
}

export interface CompiledTable {
  readonly name: TableName;
  /**
   * The table's chains, each compiled when first read: a packet's walk compiles the few chains
   * it meets (kube-proxy's rules for one Service), not the whole table. Iterating compiles
   * them all, in the order they were written.
   */
  readonly chains: ReadonlyMap<string, CompiledChain>;
}

export interface CompiledRuleSet {
  readonly ruleSet: RuleSet;
  readonly tables: ReadonlyMap<TableName, CompiledTable>;
  /** Compiled with conditions, targets and destination indexes (`compileRuleSet`'s `indexed`). */
  readonly indexed: boolean;
}

/** Chains shorter than this are scanned: an index would not pay for itself. */
export const INDEX_MIN_RULES = 16;

function hostDestinationKey(rule: Rule): IndexKey | undefined {
  const d = rule.destination;
  if (d === undefined || d.negated || !isHostCIDR(d.value)) return undefined;
  return addressKey(d.value.network);
}

function singleDestinationPort(rule: Rule): number | undefined {
  for (const m of rule.matches) {
    const port = matchDestinationPort(m);
    if (port !== undefined) return port;
  }
  return undefined;
}

function push<K>(map: Map<K, number[]>, key: K, i: number): void {
  const b = map.get(key);
  if (b === undefined) map.set(key, [i]);
  else b.push(i);
}

export function buildDestinationIndex(rules: readonly Rule[]): DestinationIndex | undefined {
  if (rules.length < INDEX_MIN_RULES) return undefined;
  const buckets = new Map<IndexKey, number[]>();
  const ports = new Map<number, number[]>();
  const always: number[] = [];
  rules.forEach((rule, i) => {
    const key = hostDestinationKey(rule);
    if (key !== undefined) return push(buckets, key, i);
    const port = singleDestinationPort(rule);
    if (port !== undefined) return push(ports, port, i);
    always.push(i);
  });
  // Worth it only when most rules are keyed.
  if (always.length * 2 > rules.length) return undefined;
  return { buckets, ports, always, merged: new Map(), mergedPorts: new Map() };
}

/** Two ascending lists of rule positions as one ascending list (the order rules are tried in). */
export function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]! < b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

function withAlways<K>(
  cache: Map<K, readonly number[]>,
  buckets: ReadonlyMap<K, readonly number[]>,
  key: K,
  always: readonly number[],
): readonly number[] | undefined {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const bucket = buckets.get(key);
  if (bucket === undefined) return undefined;
  const list = mergeSorted(bucket, always);
  cache.set(key, list);
  return list;
}

/**
 * Rule positions a packet to `dst`:`dport` can match, in order; undefined = every rule.
 * A port-keyed rule is a candidate only for its port (whatever the protocol: the walk checks it).
 */
export function candidateRules(
  chain: CompiledChain,
  dst: IPAddress,
  dport: number,
): readonly number[] | undefined {
  const index = chain.index;
  if (index === undefined) return undefined;
  const byDst = withAlways(index.merged, index.buckets, addressKey(dst), index.always);
  if (index.ports.size === 0) return byDst ?? index.always;
  const byPort = withAlways(index.mergedPorts, index.ports, dport, index.always);
  if (byPort === undefined) return byDst ?? index.always;
  if (byDst === undefined) return byPort;
  return mergeSorted(index.buckets.get(addressKey(dst))!, byPort);
}

/** The position in a sorted candidate list of the first rule at or after rule `start`. */
export function firstAtOrAfter(list: readonly number[], start: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function compileChain(
  table: TableName,
  chain: Chain,
  indexed: boolean,
  written: ReadonlyMap<string, Chain>,
): CompiledChain {
  const labels = chain.rules.map((_, i) => `${table}/${chain.name}#${i + 1}`);
  const index = indexed ? buildDestinationIndex(chain.rules) : undefined;
  const conditions = indexed ? chain.rules.map(compileRuleCondition) : undefined;
  return {
    table,
    name: chain.name,
    ...(chain.policy !== undefined ? { policy: chain.policy } : {}),
    rules: chain.rules,
    labels,
    ...(index !== undefined ? { index } : {}),
    ...(indexed
      ? {
          matchers: conditions!.map((c) => c.matcher),
          conditions: conditions!,
          appliers: chain.rules.map((r) =>
            r.target === undefined || r.target.kind === "jump"
              ? undefined
              : compileTarget(r.target),
          ),
        }
      : {}),
    recentSets: chain.rules.map(ruleRecords),
    kinds: chain.rules.map((r) =>
      r.target?.kind === "jump" && r.target.goto ? "goto" : r.target?.kind,
    ),
    // One entry per rule from the start (filled in place later: a long chain's array would
    // otherwise be sparse).
    jumpTargets: chain.rules.map(() => undefined),
    written,
  };
}

/**
 * A table's chains by name, each compiled on its first `get` (or all, in the written order,
 * by iterating). Compiling a 320,000-rule table took seconds and kept ~290 MB of closures and
 * arrays, while one packet's walk meets a few dozen rules; the depth-first walk's flat layout,
 * which needs them all, iterates.
 */
class CompiledChains implements ReadonlyMap<string, CompiledChain> {
  readonly #compiled = new Map<string, CompiledChain>();

  constructor(
    private readonly table: TableName,
    private readonly written: ReadonlyMap<string, Chain>,
    private readonly indexed: boolean,
  ) {}

  /** How many chains have been compiled so far. */
  get compiledCount(): number {
    return this.#compiled.size;
  }

  get(name: string): CompiledChain | undefined {
    let c = this.#compiled.get(name);
    if (c === undefined) {
      const chain = this.written.get(name);
      if (chain === undefined) return undefined;
      c = compileChain(this.table, chain, this.indexed, this.written);
      this.#compiled.set(name, c);
    }
    return c;
  }
  has(name: string): boolean {
    return this.written.has(name);
  }
  get size(): number {
    return this.written.size;
  }
  *entries(): MapIterator<[string, CompiledChain]> {
    for (const name of this.written.keys()) yield [name, this.get(name)!];
  }
  *keys(): MapIterator<string> {
    yield* this.written.keys();
  }
  *values(): MapIterator<CompiledChain> {
    for (const name of this.written.keys()) yield this.get(name)!;
  }
  [Symbol.iterator](): MapIterator<[string, CompiledChain]> {
    return this.entries();
  }
  forEach(
    f: (value: CompiledChain, key: string, map: ReadonlyMap<string, CompiledChain>) => void,
    thisArg?: unknown,
  ): void {
    for (const [name, c] of this.entries()) f.call(thisArg, c, name, this);
  }
}

/** How many of a table's chains have been compiled so far (each is when first read). */
export function compiledChainCount(table: CompiledTable): number {
  return table.chains instanceof CompiledChains ? table.chains.compiledCount : table.chains.size;
}

/**
 * The chain rule `i` of `from` jumps or goes to (undefined: no jump, or a missing chain, which
 * the walks report), remembered in `from.jumpTargets`.
 */
export function resolveJump(
  table: CompiledTable,
  from: CompiledChain,
  i: number,
): CompiledChain | undefined {
  const cached = from.jumpTargets[i];
  if (cached !== undefined) return cached;
  const t = from.rules[i]!.target;
  if (t?.kind !== "jump") return undefined;
  const c = table.chains.get(t.chain);
  from.jumpTargets[i] = c;
  return c;
}

const compiledIndexed = new WeakMap<RuleSet, CompiledRuleSet>();
const compiledNaive = new WeakMap<RuleSet, CompiledRuleSet>();

/**
 * The chain maps (once per rule set and mode), each chain compiled when first read, with its
 * destination index when `indexed`.
 */
export function compileRuleSet(ruleSet: RuleSet, indexed: boolean): CompiledRuleSet {
  const cache = indexed ? compiledIndexed : compiledNaive;
  const hit = cache.get(ruleSet);
  if (hit !== undefined) return hit;
  const tables = new Map<TableName, CompiledTable>();
  for (const t of ruleSet.tables) {
    const written = new Map<string, Chain>();
    for (const c of t.chains) written.set(c.name, c);
    tables.set(t.name, { name: t.name, chains: new CompiledChains(t.name, written, indexed) });
  }
  const compiled = { ruleSet, tables, indexed };
  cache.set(ruleSet, compiled);
  return compiled;
}
