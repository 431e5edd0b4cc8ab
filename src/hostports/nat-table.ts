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

/** Batched edits of a table (what one iptables invocation or restore does). */
export interface NatEditor {
  has(chain: string): boolean;
  rules(chain: string): readonly string[];
  ensureChain(name: string): void;
  /** Adds `rule` unless an identical one is already in `chain` (creating the chain if needed). */
  ensureRule(position: RulePosition, chain: string, rule: string): void;
  flushChain(chain: string): void;
  deleteRule(chain: string, rule: string): void;
  /** Like the kernel, refuses a chain that is missing, built in, non-empty or still referenced. */
  deleteChain(chain: string, line?: number): void;
}

interface WorkingChain {
  readonly builtin: boolean;
  rules: string[];
  present: Set<string>;
}

function jumpsTo(rule: string, chain: string): boolean {
  return rule.endsWith(`-j ${chain}`) || rule.includes(`-j ${chain} `);
}

/**
 * Applies `edit` to a working copy and returns the new table; the input is never changed, so
 * a throwing edit leaves the caller's table as it was. Linear in the table size per call.
 */
export function editNatTable(t: NatTable, edit: (e: NatEditor) => void): NatTable {
  const order = t.chains.map((c) => c.name);
  const chains = new Map<string, WorkingChain>(
    t.chains.map((c) => [
      c.name,
      { builtin: c.builtin, rules: [...c.rules], present: new Set(c.rules) },
    ]),
  );
  const get = (name: string): WorkingChain => {
    let c = chains.get(name);
    if (c === undefined) {
      c = { builtin: isBuiltinNatChain(name), rules: [], present: new Set() };
      chains.set(name, c);
      order.push(name);
    }
    return c;
  };
  const editor: NatEditor = {
    has: (name) => chains.has(name),
    rules: (name) => chains.get(name)?.rules ?? [],
    ensureChain: (name) => void get(name),
    ensureRule(position, chain, rule) {
      const c = get(chain);
      if (c.present.has(rule)) return;
      c.present.add(rule);
      if (position === "prepend") c.rules.unshift(rule);
      else c.rules.push(rule);
    },
    flushChain(chain) {
      const c = chains.get(chain);
      if (c === undefined) return;
      c.rules = [];
      c.present = new Set();
    },
    deleteRule(chain, rule) {
      const c = chains.get(chain);
      if (c === undefined || !c.present.has(rule)) return;
      c.present.delete(rule);
      c.rules.splice(c.rules.indexOf(rule), 1);
    },
    deleteChain(chain, line = 0) {
      const c = chains.get(chain);
      if (c === undefined) throw new NatRestoreError(line, `chain ${chain} does not exist`);
      if (c.builtin) throw new NatRestoreError(line, `cannot delete built-in chain ${chain}`);
      if (c.rules.length > 0) throw new NatRestoreError(line, `chain ${chain} is not empty`);
      for (const other of chains.values())
        if (other.rules.some((r) => jumpsTo(r, chain)))
          throw new NatRestoreError(line, `chain ${chain} is still referenced`);
      chains.delete(chain);
      order.splice(order.indexOf(chain), 1);
    },
  };
  edit(editor);
  return {
    family: t.family,
    chains: order.map((name) => {
      const c = chains.get(name)!;
      return { name, builtin: c.builtin, rules: c.rules };
    }),
  };
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
  return editNatTable(t, (e) => {
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
      const op = words[0] ?? "";
      const chain = words[1] ?? "";
      if (op.startsWith(":")) {
        const name = op.slice(1);
        e.ensureChain(name);
        // --noflush only spares built-in chains; a user chain named again is flushed.
        if (!isBuiltinNatChain(name)) e.flushChain(name);
        return;
      }
      const rest = () => {
        if (words.length < 3) throw new NatRestoreError(n, `invalid rule "${line}"`);
        return normalize(line.slice(op.length + chain.length + 2));
      };
      switch (op) {
        case "-A":
          e.ensureRule("append", chain, rest());
          return;
        case "-I":
          e.ensureRule("prepend", chain, rest());
          return;
        case "-X":
          e.deleteChain(chain, n);
          return;
        default:
          throw new NatRestoreError(n, `unsupported command "${op}"`);
      }
    });
    if (inNat) throw new NatRestoreError(lines.length, "missing COMMIT");
  });
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
