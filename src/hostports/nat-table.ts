/**
 * The nat table as the hostport implementations see it: chains in creation order, each holding
 * rule texts (the words after `-A CHAIN`). It behaves like the iptables the upstream unit tests
 * drive (kubelet's fake iptables, go-iptables' insert-unique), which is what both components
 * rely on: ensure-chain is idempotent, ensure-rule skips an identical rule, a `:CHAIN` line in a
 * `--noflush` restore flushes a user chain, `-I` prepends, `-A` appends, `-X` deletes.
 *
 * All functions return a new table; a failed restore leaves the caller's table untouched, which
 * is how the manager guarantees "nothing programmed" on failure.
 */
import type { IPFamily } from "../net/index.js";
import { BUILTIN_CHAINS } from "../netfilter/model.js";

export interface NatChain {
  readonly name: string;
  readonly builtin: boolean;
  /** Rule texts in order, without the leading `-A CHAIN `. */
  readonly rules: readonly string[];
}

export interface NatTable {
  readonly family: IPFamily;
  readonly chains: readonly NatChain[];
}

export type RulePosition = "append" | "prepend";

const NAT_BUILTINS: readonly string[] = BUILTIN_CHAINS.nat;

export class NatRestoreError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(`iptables-restore: line ${line} failed: ${message}`);
    this.name = "NatRestoreError";
    this.line = line;
  }
}

export function isBuiltinNatChain(name: string): boolean {
  return NAT_BUILTINS.includes(name);
}

/** An empty table; with `builtins` the four nat hooks exist from the start, as on a real node. */
export function emptyNatTable(family: IPFamily, builtins = false): NatTable {
  return {
    family,
    chains: builtins ? NAT_BUILTINS.map((name) => ({ name, builtin: true, rules: [] })) : [],
  };
}

export function findChain(t: NatTable, name: string): NatChain | undefined {
  return t.chains.find((c) => c.name === name);
}

export function ensureChain(t: NatTable, name: string): NatTable {
  if (findChain(t, name) !== undefined) return t;
  return {
    ...t,
    chains: [...t.chains, { name, builtin: isBuiltinNatChain(name), rules: [] }],
  };
}

function mapChain(t: NatTable, name: string, f: (c: NatChain) => NatChain): NatTable {
  return { ...t, chains: t.chains.map((c) => (c.name === name ? f(c) : c)) };
}

/** Adds `rule` unless an identical one is already in `chain` (creating the chain if needed). */
export function ensureRule(
  t: NatTable,
  position: RulePosition,
  chain: string,
  rule: string,
): NatTable {
  const withChain = ensureChain(t, chain);
  if (findChain(withChain, chain)?.rules.includes(rule) === true) return withChain;
  return mapChain(withChain, chain, (c) => ({
    ...c,
    rules: position === "prepend" ? [rule, ...c.rules] : [...c.rules, rule],
  }));
}

export function flushChain(t: NatTable, chain: string): NatTable {
  return mapChain(t, chain, (c) => ({ ...c, rules: [] }));
}

export function deleteRule(t: NatTable, chain: string, rule: string): NatTable {
  return mapChain(t, chain, (c) => {
    const i = c.rules.indexOf(rule);
    return i < 0 ? c : { ...c, rules: [...c.rules.slice(0, i), ...c.rules.slice(i + 1)] };
  });
}

/** Every rule (in any chain) that jumps to `chain`. */
export function referencesTo(t: NatTable, chain: string): readonly string[] {
  const out: string[] = [];
  for (const c of t.chains)
    for (const r of c.rules)
      if (r.endsWith(`-j ${chain}`) || r.includes(`-j ${chain} `)) out.push(r);
  return out;
}

/** Deletes a user chain; like the kernel, refuses a chain that is missing, non-empty or in use. */
export function deleteChain(t: NatTable, chain: string, line = 0): NatTable {
  const c = findChain(t, chain);
  if (c === undefined) throw new NatRestoreError(line, `chain ${chain} does not exist`);
  if (c.builtin) throw new NatRestoreError(line, `cannot delete built-in chain ${chain}`);
  if (c.rules.length > 0) throw new NatRestoreError(line, `chain ${chain} is not empty`);
  if (referencesTo(t, chain).length > 0)
    throw new NatRestoreError(line, `chain ${chain} is still referenced`);
  return { ...t, chains: t.chains.filter((x) => x.name !== chain) };
}

/**
 * Applies an iptables-restore payload for the nat table with `--noflush`. `normalize` turns a
 * written rule into its stored text (the kubelet fake adds `/32` to bare addresses, …).
 */
export function restoreNoflush(
  t: NatTable,
  payload: string,
  normalize: (rule: string) => string = (r) => r,
): NatTable {
  const lines = payload.split("\n");
  let table = t;
  let inNat = false;
  lines.forEach((raw, i) => {
    const n = i + 1;
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) return;
    if (line.startsWith("*")) {
      if (line !== "*nat") throw new NatRestoreError(n, `unexpected table ${line.slice(1)}`);
      inNat = true;
      return;
    }
    if (!inNat) throw new NatRestoreError(n, "rule outside a table");
    if (line === "COMMIT") {
      inNat = false;
      return;
    }
    const words = line.split(" ");
    const op = words[0];
    const chain = words[1] ?? "";
    if (op !== undefined && op.startsWith(":")) {
      const name = op.slice(1);
      table = ensureChain(table, name);
      // --noflush only spares built-in chains; a user chain named again is flushed.
      if (!isBuiltinNatChain(name)) table = flushChain(table, name);
      return;
    }
    const rest = () => {
      if (words.length < 3) throw new NatRestoreError(n, `invalid rule "${line}"`);
      return normalize(line.slice(op!.length + chain.length + 2));
    };
    switch (op) {
      case "-A":
        table = ensureRule(table, "append", chain, rest());
        return;
      case "-I":
        table = ensureRule(table, "prepend", chain, rest());
        return;
      case "-X":
        table = deleteChain(table, chain, n);
        return;
      default:
        throw new NatRestoreError(n, `unsupported command "${op}"`);
    }
  });
  if (inNat) throw new NatRestoreError(lines.length, "missing COMMIT");
  return table;
}

export type NatTableStyle =
  /** As the kubelet's fake iptables saves it: every chain as `:NAME - [0:0]`, creation order. */
  | "kubelet-fake"
  /** iptables-restore input: built-in chains with policy ACCEPT first, then user chains. */
  | "restore";

export function formatNatTable(t: NatTable, style: NatTableStyle): string {
  const chains =
    style === "restore"
      ? [
          ...t.chains
            .filter((c) => c.builtin)
            .sort((a, b) => NAT_BUILTINS.indexOf(a.name) - NAT_BUILTINS.indexOf(b.name)),
          ...t.chains.filter((c) => !c.builtin),
        ]
      : t.chains;
  const out: string[] = ["*nat"];
  for (const c of chains)
    out.push(`:${c.name} ${style === "restore" && c.builtin ? "ACCEPT" : "-"} [0:0]`);
  for (const c of chains) for (const r of c.rules) out.push(`-A ${c.name} ${r}`);
  out.push("COMMIT");
  return `${out.join("\n")}\n`;
}
