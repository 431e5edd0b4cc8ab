/**
 * Builds a `Table` incrementally, as a generator adds objects: chains keep their creation order
 * and collect rules; a re-added element key replaces the old element in place (as the knftables
 * fake does).
 */
import type { BaseChainSpec, Chain, Family, NamedSet, Rule, SetElement, Table } from "./model.js";
import type { TableSink } from "./table-sink.js";

interface MutableChain {
  readonly name: string;
  readonly comment?: string;
  readonly base?: BaseChainSpec;
  readonly rules: Rule[];
}

interface MutableSet {
  readonly decl: Omit<NamedSet, "elements">;
  readonly elements: SetElement[];
  readonly index: Map<string, number>;
}

export class TableBuilder implements TableSink {
  private readonly chains = new Map<string, MutableChain>();
  private readonly sets = new Map<string, MutableSet>();

  constructor(
    readonly family: Family,
    readonly name: string,
    readonly comment?: string,
  ) {}

  addChain(name: string, opts: { comment?: string; base?: BaseChainSpec } = {}): void {
    if (this.chains.has(name)) return;
    this.chains.set(name, { name, rules: [], ...opts });
  }

  hasChain(name: string): boolean {
    return this.chains.has(name);
  }

  addRule(chain: string, rule: Rule): void {
    const c = this.chains.get(chain);
    if (c === undefined) throw new Error(`add rule: no chain ${chain}`);
    c.rules.push(rule);
  }

  addSet(decl: Omit<NamedSet, "elements">): void {
    if (this.sets.has(decl.name)) return;
    this.sets.set(decl.name, { decl, elements: [], index: new Map() });
  }

  addElement(set: string, element: SetElement): void {
    const s = this.sets.get(set);
    if (s === undefined) throw new Error(`add element: no set ${set}`);
    const key = element.key.join(" . ");
    const at = s.index.get(key);
    if (at === undefined) {
      s.index.set(key, s.elements.length);
      s.elements.push(element);
    } else s.elements[at] = element;
  }

  build(): Table {
    const chains: Chain[] = [...this.chains.values()].map((c) => ({ ...c, rules: [...c.rules] }));
    const sets: NamedSet[] = [...this.sets.values()].map((s) => ({
      ...s.decl,
      elements: [...s.elements],
    }));
    return {
      family: this.family,
      name: this.name,
      ...(this.comment !== undefined ? { comment: this.comment } : {}),
      sets,
      chains,
    };
  }
}
