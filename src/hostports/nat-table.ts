/**
 * The nat table as the hostport implementations see it: chains in creation order, each holding
 * typed rules built by the component (`Rule.written` is the rule's stored text, the words after
 * `-A CHAIN`, which is what identical-rule checks compare). It behaves like the iptables the upstream unit tests
 * drive (kubelet's fake iptables, go-iptables' insert-unique), which is what both components
 * rely on: ensure-chain is idempotent, ensure-rule skips an identical rule, a `:CHAIN` line in a
 * `--noflush` restore flushes a user chain, `-I` prepends, `-A` appends, `-X` deletes.
 *
 * All functions return a new table; a failed restore leaves the caller's table untouched, which
 * is how the manager guarantees "nothing programmed" on failure.
 */
import type { IPFamily } from "../net/index.js";
import { assertNever } from "../util/assert-never.js";
import { BUILTIN_CHAINS, type Rule } from "../netfilter/model.js";
import { inputIssue, ValidationError } from "../issue/validation-error.js";

/** A rule of the table: typed, with its stored text in `written`. */
export type NatRule = Rule & { readonly written: string };

export interface NatChain {
  readonly name: string;
  readonly builtin: boolean;
  /** Rules in order; `written` is the text after the leading `-A CHAIN `. */
  readonly rules: readonly NatRule[];
}

export interface NatTable {
  readonly family: IPFamily;
  readonly chains: readonly NatChain[];
}

export type RulePosition = "append" | "prepend";

const NAT_BUILTINS: readonly string[] = BUILTIN_CHAINS.nat;

/** A restore the nat table refuses, in iptables-restore's words (`syntax`: rules text it would refuse). */
export class NatRestoreError extends ValidationError {
  readonly line: number;
  constructor(line: number, message: string) {
    super([inputIssue("syntax", `iptables-restore: line ${line} failed: ${message}`)]);
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
  rules(chain: string): readonly NatRule[];
  ensureChain(name: string): void;
  /** Adds `rule` unless an identical one is already in `chain` (creating the chain if needed). */
  ensureRule(position: RulePosition, chain: string, rule: NatRule): void;
  flushChain(chain: string): void;
  /** Deletes the rule whose text is `rule.written`, if any. */
  deleteRule(chain: string, rule: NatRule): void;
  /** Like the kernel, refuses a chain that is missing, built in, non-empty or still referenced. */
  deleteChain(chain: string, line?: number): void;
}

interface WorkingChain {
  readonly builtin: boolean;
  rules: NatRule[];
  /** The texts of `rules`. */
  present: Set<string>;
}

/** Whether the rule jumps (or goes) to `chain`. */
export function jumpsTo(rule: Rule, chain: string): boolean {
  return rule.target?.kind === "jump" && rule.target.chain === chain;
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
      { builtin: c.builtin, rules: [...c.rules], present: new Set(c.rules.map((r) => r.written)) },
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
      if (c.present.has(rule.written)) return;
      c.present.add(rule.written);
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
      if (c === undefined || !c.present.has(rule.written)) return;
      c.present.delete(rule.written);
      c.rules.splice(
        c.rules.findIndex((r) => r.written === rule.written),
        1,
      );
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
 * One line of an iptables-restore payload for the nat table, as data: `:CHAIN - [0:0]`,
 * `-A CHAIN rule`, `-I CHAIN rule`, `-X CHAIN`.
 */
export type NatRestoreOp =
  | { readonly kind: "declare"; readonly chain: string }
  | { readonly kind: "append" | "insert"; readonly chain: string; readonly rule: NatRule }
  | { readonly kind: "delete-chain"; readonly chain: string };

/**
 * Applies a restore payload for the nat table with `--noflush` (`*nat`, the ops, `COMMIT`);
 * an error names the op's line in that payload (the first op is line 2).
 */
export function restoreNoflush(t: NatTable, ops: readonly NatRestoreOp[]): NatTable {
  return editNatTable(t, (e) => {
    ops.forEach((op, i) => {
      switch (op.kind) {
        case "declare":
          e.ensureChain(op.chain);
          // --noflush only spares built-in chains; a user chain named again is flushed.
          if (!isBuiltinNatChain(op.chain)) e.flushChain(op.chain);
          return;
        case "append":
          e.ensureRule("append", op.chain, op.rule);
          return;
        case "insert":
          e.ensureRule("prepend", op.chain, op.rule);
          return;
        case "delete-chain":
          e.deleteChain(op.chain, i + 2);
          return;
        default:
          assertNever(op);
      }
    });
  });
}

export type NatTableStyle =
  /** As the kubelet's fake iptables saves it: every chain as `:NAME - [0:0]`, creation order. */
  | "kubelet-fake"
  /** iptables-restore input: built-in chains with policy ACCEPT first, then user chains. */
  | "restore";

/** The chains in iptables-restore input order: built-in chains first (hook order), then user chains. */
export function restoreChainOrder(t: NatTable): NatChain[] {
  return [
    ...t.chains
      .filter((c) => c.builtin)
      .sort((a, b) => NAT_BUILTINS.indexOf(a.name) - NAT_BUILTINS.indexOf(b.name)),
    ...t.chains.filter((c) => !c.builtin),
  ];
}

export function formatNatTable(t: NatTable, style: NatTableStyle): string {
  const chains = style === "restore" ? restoreChainOrder(t) : t.chains;
  const out: string[] = ["*nat"];
  for (const c of chains)
    out.push(`:${c.name} ${style === "restore" && c.builtin ? "ACCEPT" : "-"} [0:0]`);
  for (const c of chains) for (const r of c.rules) out.push(`-A ${c.name} ${r.written}`);
  out.push("COMMIT");
  return `${out.join("\n")}\n`;
}
