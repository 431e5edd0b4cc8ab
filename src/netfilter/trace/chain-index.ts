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

export type IndexKey = number | string;

export function addressKey(ip: IPAddress): IndexKey {
  return ip.family === "IPv4" ? ip.value : `6:${ip.value.toString(16)}`;
}

export interface DestinationIndex {
  readonly buckets: ReadonlyMap<IndexKey, readonly number[]>;
  readonly always: readonly number[];
  /** Merged candidate lists, filled on first use per key. */
  readonly merged: Map<IndexKey, readonly number[]>;
}

export interface CompiledChain {
  readonly table: TableName;
  readonly name: string;
  readonly policy?: "ACCEPT" | "DROP";
  readonly rules: readonly Rule[];
  /** Precomputed `table/CHAIN#n` labels. */
  readonly labels: readonly string[];
  readonly index?: DestinationIndex;
}

export interface CompiledTable {
  readonly name: TableName;
  readonly chains: ReadonlyMap<string, CompiledChain>;
}

export interface CompiledRuleSet {
  readonly ruleSet: RuleSet;
  readonly tables: ReadonlyMap<TableName, CompiledTable>;
}

/** Chains shorter than this are scanned: an index would not pay for itself. */
export const INDEX_MIN_RULES = 16;

function hostDestinationKey(rule: Rule): IndexKey | undefined {
  const d = rule.destination;
  if (d === undefined || d.negated || !isHostCIDR(d.value)) return undefined;
  return addressKey(d.value.network);
}

export function buildDestinationIndex(rules: readonly Rule[]): DestinationIndex | undefined {
  if (rules.length < INDEX_MIN_RULES) return undefined;
  const buckets = new Map<IndexKey, number[]>();
  const always: number[] = [];
  rules.forEach((rule, i) => {
    const key = hostDestinationKey(rule);
    if (key === undefined) {
      always.push(i);
      return;
    }
    const b = buckets.get(key);
    if (b === undefined) buckets.set(key, [i]);
    else b.push(i);
  });
  // Worth it only when most rules are keyed.
  if (always.length * 2 > rules.length) return undefined;
  return { buckets, always, merged: new Map() };
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]! < b[j]! ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Rule positions a packet to `dst` can match, in order; undefined = every rule. */
export function candidateRules(chain: CompiledChain, dst: IPAddress): readonly number[] | undefined {
  const index = chain.index;
  if (index === undefined) return undefined;
  const key = addressKey(dst);
  const cached = index.merged.get(key);
  if (cached !== undefined) return cached;
  const bucket = index.buckets.get(key);
  const list = bucket === undefined ? index.always : mergeSorted(bucket, index.always);
  if (bucket !== undefined) index.merged.set(key, list);
  return list;
}

function compileChain(table: TableName, chain: Chain, indexed: boolean): CompiledChain {
  const labels = chain.rules.map((_, i) => `${table}/${chain.name}#${i + 1}`);
  const index = indexed ? buildDestinationIndex(chain.rules) : undefined;
  return {
    table,
    name: chain.name,
    ...(chain.policy !== undefined ? { policy: chain.policy } : {}),
    rules: chain.rules,
    labels,
    ...(index !== undefined ? { index } : {}),
  };
}

const compiledIndexed = new WeakMap<RuleSet, CompiledRuleSet>();
const compiledNaive = new WeakMap<RuleSet, CompiledRuleSet>();

/** Compiles (once per rule set and mode) the chain maps and, when `indexed`, the indexes. */
export function compileRuleSet(ruleSet: RuleSet, indexed: boolean): CompiledRuleSet {
  const cache = indexed ? compiledIndexed : compiledNaive;
  const hit = cache.get(ruleSet);
  if (hit !== undefined) return hit;
  const tables = new Map<TableName, CompiledTable>();
  for (const t of ruleSet.tables) {
    const chains = new Map<string, CompiledChain>();
    for (const c of t.chains) chains.set(c.name, compileChain(t.name, c, indexed));
    tables.set(t.name, { name: t.name, chains });
  }
  const compiled = { ruleSet, tables };
  cache.set(ruleSet, compiled);
  return compiled;
}
