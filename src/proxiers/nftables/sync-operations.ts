/**
 * The operations of a knftables transaction (sigs.k8s.io/knftables: `tx.Add`, `tx.Flush`,
 * `tx.Delete` of tables, chains, rules, sets, maps and elements) as typed data, their text as
 * knftables writes it to `nft -f` (objects.go `writeOperation`), and their effect on a table, as
 * the kernel (and the knftables fake) applies them. `NumOperations()` is the number of items.
 */
import {
  chainAddLine,
  elementAddLine,
  ruleAddLine,
  setAddLine,
  tableAddLine,
} from "../../netfilter/nftables/knftables-text.js";
import type {
  BaseChainSpec,
  Chain,
  Family,
  NamedSet,
  Rule,
  SetElement,
  Table,
} from "../../netfilter/nftables/model.js";
import { assertNever } from "../../util/assert-never.js";

export type SetKind = "set" | "map";
export type SetDecl = Omit<NamedSet, "elements">;

export type NftOperation =
  | { readonly kind: "add-table"; readonly comment?: string }
  /** Without `base`/`comment`: `add chain FAMILY TABLE NAME` (also used on base chains). */
  | {
      readonly kind: "add-chain";
      readonly name: string;
      readonly base?: BaseChainSpec;
      readonly comment?: string;
    }
  | { readonly kind: "flush-chain"; readonly name: string }
  | { readonly kind: "delete-chain"; readonly name: string }
  | { readonly kind: "add-rule"; readonly chain: string; readonly rule: Rule }
  | { readonly kind: "add-set"; readonly set: SetDecl }
  | { readonly kind: "flush-set"; readonly setKind: SetKind; readonly name: string }
  | { readonly kind: "delete-set"; readonly setKind: SetKind; readonly name: string }
  | {
      readonly kind: "add-element";
      readonly set: string;
      readonly element: SetElement;
    }
  /** knftables writes only the key of a deleted element: `delete element … NAME { K1 . K2 }`. */
  | { readonly kind: "delete-element"; readonly set: string; readonly key: readonly string[] };

/** The table an operation list is written for. */
export interface TableRef {
  readonly family: Family;
  readonly name: string;
  readonly comment?: string;
}

const asTable = (t: TableRef): Table => ({ ...t, sets: [], chains: [] });

/** One operation as one line of `nft -f` input (no newline). */
export function operationText(t: TableRef, op: NftOperation): string {
  const prefix = `${t.family} ${t.name}`;
  switch (op.kind) {
    case "add-table":
      return tableAddLine({
        ...asTable(t),
        ...(op.comment !== undefined ? { comment: op.comment } : {}),
      });
    case "add-chain": {
      const c: Chain = {
        name: op.name,
        rules: [],
        ...(op.base !== undefined ? { base: op.base } : {}),
        ...(op.comment !== undefined ? { comment: op.comment } : {}),
      };
      return chainAddLine(asTable(t), c);
    }
    case "flush-chain":
      return `flush chain ${prefix} ${op.name}`;
    case "delete-chain":
      return `delete chain ${prefix} ${op.name}`;
    case "add-rule":
      return ruleAddLine(asTable(t), op.chain, op.rule);
    case "add-set":
      return setAddLine(asTable(t), { ...op.set, elements: [] });
    case "flush-set":
      return `flush ${op.setKind} ${prefix} ${op.name}`;
    case "delete-set":
      return `delete ${op.setKind} ${prefix} ${op.name}`;
    case "add-element":
      return elementAddLine(asTable(t), op.set, op.element);
    case "delete-element":
      return `delete element ${prefix} ${op.set} { ${op.key.join(" . ")} }`;
    default:
      return assertNever(op);
  }
}

/** A whole transaction as `nft -f` input: one line per operation, each ending in a newline. */
export function transactionText(t: TableRef, ops: readonly NftOperation[]): string {
  let out = "";
  for (const op of ops) out += `${operationText(t, op)}\n`;
  return out;
}

interface LiveChain {
  readonly name: string;
  readonly base?: BaseChainSpec;
  readonly comment?: string;
  rules: Rule[];
}

interface LiveSet {
  readonly decl: SetDecl;
  /** By `K1 . K2 . K3`, in insertion order. */
  readonly elements: Map<string, SetElement>;
}

export const elementKey = (key: readonly string[]): string => key.join(" . ");

/**
 * One nftables table as the kernel holds it between transactions: chains and sets in creation
 * order (what `nft list table` and the Dump of the knftables fake show). Operations that name
 * an object that does not exist fail, as they fail in nft (`No such file or directory`).
 */
export class LiveTable {
  private readonly chains = new Map<string, LiveChain>();
  private readonly sets = new Map<string, LiveSet>();
  private comment: string | undefined;

  constructor(readonly ref: TableRef) {}

  chainNames(): string[] {
    return [...this.chains.keys()];
  }

  setNames(): string[] {
    return [...this.sets.keys()];
  }

  /** The elements of a set or map by key, with their value text (`""` for a set element). */
  elementsOf(name: string): Map<string, SetElement> | undefined {
    return this.sets.get(name)?.elements;
  }

  apply(op: NftOperation): void {
    switch (op.kind) {
      case "add-table":
        this.comment ??= op.comment;
        return;
      case "add-chain":
        if (!this.chains.has(op.name))
          this.chains.set(op.name, {
            name: op.name,
            rules: [],
            ...(op.base !== undefined ? { base: op.base } : {}),
            ...(op.comment !== undefined ? { comment: op.comment } : {}),
          });
        return;
      case "flush-chain":
        this.chain(op.name).rules = [];
        return;
      case "delete-chain":
        this.chain(op.name);
        this.chains.delete(op.name);
        return;
      case "add-rule":
        this.chain(op.chain).rules.push(op.rule);
        return;
      case "add-set":
        if (!this.sets.has(op.set.name))
          this.sets.set(op.set.name, { decl: op.set, elements: new Map() });
        return;
      case "flush-set":
        this.set(op.name).elements.clear();
        return;
      case "delete-set":
        this.set(op.name);
        this.sets.delete(op.name);
        return;
      case "add-element":
        // An existing key is replaced in place, as the knftables fake does.
        this.set(op.set).elements.set(elementKey(op.element.key), op.element);
        return;
      case "delete-element": {
        const s = this.set(op.set);
        const k = elementKey(op.key);
        if (!s.elements.delete(k))
          throw new Error(`delete element ${op.set} { ${k} }: no such element`);
        return;
      }
      default:
        assertNever(op);
    }
  }

  applyAll(ops: readonly NftOperation[]): void {
    for (const op of ops) this.apply(op);
  }

  /** A snapshot as the typed model (creation order kept). */
  table(): Table {
    return {
      family: this.ref.family,
      name: this.ref.name,
      ...(this.comment !== undefined ? { comment: this.comment } : {}),
      chains: [...this.chains.values()].map((c) => ({ ...c, rules: [...c.rules] })),
      sets: [...this.sets.values()].map((s) => ({ ...s.decl, elements: [...s.elements.values()] })),
    };
  }

  private chain(name: string): LiveChain {
    const c = this.chains.get(name);
    if (c === undefined) throw new Error(`chain ${name}: no such chain`);
    return c;
  }

  private set(name: string): LiveSet {
    const s = this.sets.get(name);
    if (s === undefined) throw new Error(`set ${name}: no such set or map`);
    return s;
  }
}
