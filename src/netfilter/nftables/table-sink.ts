/**
 * What a generator writes a table into: chains, their rules, sets and maps and their elements,
 * in the order it decides them. `TableBuilder` (builder.ts) keeps them as a typed `Table`;
 * `DumpWriter` (dump-writer.ts) keeps only the bytes of the knftables Dump, for a caller that
 * prints the text and nothing else. Both answer the same way: a chain or set added twice keeps
 * the first, a re-added element key replaces the old element in place, a rule or element for a
 * chain or set not added is refused.
 */
import type { BaseChainSpec, NamedSet, Rule, SetElement } from "./model.js";

export interface TableSink {
  addChain(name: string, opts?: { comment?: string; base?: BaseChainSpec }): void;
  hasChain(name: string): boolean;
  addRule(chain: string, rule: Rule): void;
  addSet(decl: Omit<NamedSet, "elements">): void;
  addElement(set: string, element: SetElement): void;
}
