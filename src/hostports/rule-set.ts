/**
 * Hostport rules as netfilter data, and merged with kube-proxy's, so the tracer sees one node.
 *
 * The hostport components write into the nat table next to kube-proxy: the kubelet appends its
 * KUBE-HOSTPORTS jumps and localhost SNAT to the built-in chains (after kube-proxy's
 * KUBE-SERVICES, which kube-proxy inserts at the top), portmap appends its CNI-HOSTPORT-DNAT
 * jumps and puts its CNI-HOSTPORT-MASQ jump at the top of POSTROUTING. Chains the rules jump to
 * but do not own (kube-proxy's KUBE-MARK-MASQ, portmap's externalSetMarkChain) are declared
 * empty when the hostport rules stand alone: without kube-proxy nothing marks or masquerades.
 */
import {
  BUILTIN_CHAINS,
  type Chain,
  type Counters,
  type Rule,
  type RuleSet,
  type Table,
} from "../netfilter/model.js";
import { formatIptablesSave } from "../netfilter/format/save.js";
import { findChain, isBuiltinNatChain, restoreChainOrder, type NatTable } from "./nat-table.js";
import type { HostportImpl, NodeHostports } from "./node-hostports.js";

const ZERO: Counters = Object.freeze({ packets: 0n, bytes: 0n });

/** Chains the table's rules jump to without declaring them (sorted). */
export function externalChains(nat: NatTable): string[] {
  const out = new Set<string>();
  for (const c of nat.chains)
    for (const r of c.rules) {
      const t = r.target;
      if (t?.kind === "jump" && findChain(nat, t.chain) === undefined) out.add(t.chain);
    }
  return [...out].sort();
}

/**
 * The hostport nat table of one family as a RuleSet, from the table's typed rules: what
 * parsing its restore text (`formatNatTable(nat, "restore")`) with the external chains
 * declared empty right after `*nat` gives, line numbers included.
 */
export function hostportRuleSet(f: {
  readonly family: RuleSet["family"];
  readonly nat: NatTable;
}): RuleSet {
  const external = externalChains(f.nat);
  const ordered = restoreChainOrder(f.nat);
  let line = 2;
  const declared = new Map<string, number>();
  const lineOf = (name: string): number => declared.get(name) ?? 0;
  for (const name of external) declared.set(name, line++);
  for (const c of ordered) declared.set(c.name, line++);
  const rules = new Map<string, Rule[]>();
  for (const c of ordered)
    rules.set(
      c.name,
      c.rules.map((r) => ({ ...r, line: line++ })),
    );
  const builtins: Chain[] = BUILTIN_CHAINS.nat.map((name) => {
    const at = declared.get(name);
    const chain = { name, rules: rules.get(name) ?? [], policy: "ACCEPT" as const };
    return at === undefined ? chain : { ...chain, counters: ZERO, line: at };
  });
  const user: Chain[] = [
    ...external.map((name) => ({ name, rules: [], counters: ZERO, line: lineOf(name) })),
    ...ordered
      .filter((c) => !c.builtin)
      .map((c) => ({
        name: c.name,
        rules: rules.get(c.name) ?? [],
        counters: ZERO,
        line: lineOf(c.name),
      })),
  ];
  const nat: Table = { name: "nat", chains: [...builtins, ...user], line: 1 };
  return { family: f.family, tables: [nat] };
}

/**
 * What `iptables-save -t nat` prints once the family's hostport rules are loaded on a node
 * whose nat table held only the external chains (empty): canonical spelling and order.
 */
export function formatHostportSave(f: {
  readonly family: RuleSet["family"];
  readonly nat: NatTable;
}): string {
  return formatIptablesSave(hostportRuleSet(f), { counters: false });
}

function mergeChains(base: Chain, extra: Chain, prepend: boolean): Chain {
  return {
    ...base,
    rules: prepend ? [...extra.rules, ...base.rules] : [...base.rules, ...extra.rules],
  };
}

/**
 * kube-proxy's rule set with the hostport nat chains added. Built-in chains get the hostport
 * rules after kube-proxy's (portmap's POSTROUTING jump before them); a chain both declare keeps
 * kube-proxy's rules plus the hostport ones (an empty external declaration adds nothing).
 */
export function mergeHostportRuleSet(
  base: RuleSet,
  hostports: RuleSet,
  impl: HostportImpl,
): RuleSet {
  const hpNat = hostports.tables.find((t) => t.name === "nat");
  if (hpNat === undefined) return base;
  const baseNat = base.tables.find((t) => t.name === "nat");
  if (baseNat === undefined) return { ...base, tables: [...base.tables, hpNat] };
  const chains: Chain[] = baseNat.chains.map((c) => {
    const extra = hpNat.chains.find((x) => x.name === c.name);
    if (extra === undefined) return c;
    const prepend = impl === "portmap" && c.name === "POSTROUTING";
    return mergeChains(c, extra, prepend);
  });
  for (const c of hpNat.chains)
    if (!baseNat.chains.some((x) => x.name === c.name)) {
      if (isBuiltinNatChain(c.name) && c.rules.length === 0) continue;
      chains.push(c);
    }
  const nat: Table = { ...baseNat, chains };
  return { ...base, tables: base.tables.map((t) => (t.name === "nat" ? nat : t)) };
}

/** Every family's rule set with that family's hostport rules merged in (added when missing). */
export function withHostportRules(ruleSets: readonly RuleSet[], result: NodeHostports): RuleSet[] {
  const out = [...ruleSets];
  for (const f of result.families) {
    const hp = hostportRuleSet(f);
    const i = out.findIndex((rs) => rs.family === f.family);
    if (i < 0) out.push(hp);
    else out[i] = mergeHostportRuleSet(out[i]!, hp, result.impl);
  }
  return out;
}
