/**
 * The knftables Dump of one table (dump.ts's order and lines) written as a generator adds
 * objects, for a caller that prints the text and reads nothing else (`render nftables`): no
 * typed rule survives its `addRule`. What the Dump must wait for is kept as bytes: chain names
 * and rule bodies (ByteRecords), and per chain the list of its rules (typed arrays); elements
 * and set declarations (a few per table) as strings. `write` then prints chains, sets and maps
 * by name, every chain's rules, and the elements.
 *
 * Why: the Dump lists chains by name, and kube-proxy's chain names start with a hash, so no line
 * of a large table can be printed before the last service port is written; a typed table of
 * 10,000 services × 10 endpoints (112,000 chains, 215,000 rules) kept every rule's statements
 * alive through the render, and the garbage collector copied them (docs/nftables-proxier.md).
 * The bytes are the formatter's own: each line is made by the same functions dumpTable uses
 * (knftables-text.ts), and test/proxiers/nftables/streamed-dump.test.ts holds the two equal.
 */
import { ByteOutput } from "../build/byte-output.js";
import { ByteRecords } from "../build/byte-records.js";
import { ChainNameSet } from "../build/chain-name-set.js";
import { chainAddLine, elementText, ruleText, setAddLine, tableAddLine } from "./knftables-text.js";
import type { BaseChainSpec, Family, NamedSet, Rule, SetElement, Table } from "./model.js";
import type { TableSink } from "./table-sink.js";

const SPACE = 0x20;
const NEWLINE = 10;

/** A growable list of 32-bit integers. */
class Ints {
  #a = new Int32Array(64);
  length = 0;

  push(v: number): number {
    if (this.length === this.#a.length) {
      const b = new Int32Array(this.#a.length * 2);
      b.set(this.#a);
      this.#a = b;
    }
    this.#a[this.length] = v;
    return this.length++;
  }

  get(i: number): number {
    return this.#a[i] as number;
  }

  set(i: number, v: number): void {
    this.#a[i] = v;
  }
}

interface SetDraft {
  readonly decl: Omit<NamedSet, "elements">;
  /** Element text by key, in insertion order (a re-added key keeps its place). */
  readonly elements: Map<string, string>;
}

export class DumpWriter implements TableSink {
  readonly #records = new ByteRecords("an nftables chain name or rule");
  readonly #names: ChainNameSet;
  // Per chain: its name's record, the text after the name on its `add chain` line (a record,
  // or -1), and the first and last of its rules (-1: none).
  readonly #nameAt = new Ints();
  readonly #nameLength = new Ints();
  readonly #specAt = new Ints();
  readonly #specLength = new Ints();
  readonly #firstRule = new Ints();
  readonly #lastRule = new Ints();
  // Per rule: its body's record and the chain's next rule (-1: none).
  readonly #ruleAt = new Ints();
  readonly #ruleLength = new Ints();
  readonly #nextRule = new Ints();
  readonly #sets = new Map<string, SetDraft>();
  /** The chain a rule went to last, and its index: most rules follow their chain's. */
  #lastChain: string | undefined;
  #lastChainIndex = -1;

  /** @param expectedChains a hint: how many chains are likely to come. */
  constructor(
    readonly family: Family,
    readonly name: string,
    readonly comment?: string,
    expectedChains = 0,
  ) {
    this.#names = new ChainNameSet(this.#records, expectedChains);
  }

  addChain(name: string, opts: { comment?: string; base?: BaseChainSpec } = {}): void {
    const h = ChainNameSet.hashOf(name);
    if (this.#names.findHashed(name, h) >= 0) return;
    // The name, then a space (the end ChainNameSet looks for).
    const at = this.#records.put(name, SPACE);
    this.#names.addHashed(h, at);
    this.#nameAt.push(at);
    this.#nameLength.push(this.#records.lastLength);
    if (opts.comment === undefined && opts.base === undefined) {
      this.#specAt.push(-1);
      this.#specLength.push(0);
    } else {
      const line = chainAddLine(this.#table(), { name, rules: [], ...opts });
      const spec = line.slice(`add chain ${this.family} ${this.name} ${name}`.length);
      this.#specAt.push(this.#records.put(spec));
      this.#specLength.push(this.#records.lastLength);
    }
    this.#firstRule.push(-1);
    this.#lastRule.push(-1);
  }

  hasChain(name: string): boolean {
    return this.#names.find(name) >= 0;
  }

  addRule(chain: string, rule: Rule): void {
    const c = this.#chainIndex(chain);
    if (c < 0) throw new Error(`add rule: no chain ${chain}`);
    const r = this.#ruleAt.push(this.#records.put(ruleText(rule)));
    this.#ruleLength.push(this.#records.lastLength);
    this.#nextRule.push(-1);
    const last = this.#lastRule.get(c);
    if (last < 0) this.#firstRule.set(c, r);
    else this.#nextRule.set(last, r);
    this.#lastRule.set(c, r);
  }

  #chainIndex(chain: string): number {
    if (chain === this.#lastChain) return this.#lastChainIndex;
    const at = this.#names.find(chain);
    if (at < 0) return -1;
    // Names are written in the order chains are added: their positions ascend.
    let lo = 0;
    let hi = this.#nameAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#nameAt.get(mid) < at) lo = mid + 1;
      else hi = mid;
    }
    this.#lastChain = chain;
    this.#lastChainIndex = lo;
    return lo;
  }

  addSet(decl: Omit<NamedSet, "elements">): void {
    if (this.#sets.has(decl.name)) return;
    this.#sets.set(decl.name, { decl, elements: new Map() });
  }

  addElement(set: string, element: SetElement): void {
    const s = this.#sets.get(set);
    if (s === undefined) throw new Error(`add element: no set ${set}`);
    s.elements.set(element.key.join(" . "), elementText(element));
  }

  /** The table's fields for the line functions (its objects are not needed there). */
  #table(): Table {
    return {
      family: this.family,
      name: this.name,
      ...(this.comment !== undefined ? { comment: this.comment } : {}),
      sets: [],
      chains: [],
    };
  }

  /** The chains' indices by name (as dumpTable sorts them: code unit order). */
  #chainsByName(): Int32Array {
    const n = this.#nameAt.length;
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const records = this.#records;
    if (records.ascii) {
      // The first 18 bytes as three numbers per name (kube-proxy's names differ within them:
      // `endpoint-` and an 8-character hash), the bytes compared only when all three tie.
      const at = new Float64Array(n);
      const len = new Float64Array(n);
      const k1 = new Float64Array(n);
      const k2 = new Float64Array(n);
      const k3 = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const a = (at[i] = this.#nameAt.get(i));
        const l = (len[i] = this.#nameLength.get(i));
        k1[i] = records.key(a, l, 0);
        k2[i] = records.key(a, l, 6);
        k3[i] = records.key(a, l, 12);
      }
      return order.sort(
        (a, b) =>
          (k1[a] as number) - (k1[b] as number) ||
          (k2[a] as number) - (k2[b] as number) ||
          (k3[a] as number) - (k3[b] as number) ||
          records.compare(at[a] as number, len[a] as number, at[b] as number, len[b] as number),
      );
    }
    const names = Array.from(order, (i) =>
      records.text(this.#nameAt.get(i), this.#nameLength.get(i)),
    );
    return order.sort((a, b) => {
      const x = names[a] as string;
      const y = names[b] as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
  }

  /**
   * Prints the Dump into `write`, in pieces; each piece is written over once `write` returns.
   * May be called again.
   */
  write(write: (bytes: Uint8Array) => void): void {
    const out = new ByteOutput(write);
    const records = this.#records;
    const table = this.#table();
    out.text(tableAddLine(table));
    out.byte(NEWLINE);
    const chains = this.#chainsByName();
    const chainPrefix = `add chain ${this.family} ${this.name} `;
    for (const c of chains) {
      out.text(chainPrefix);
      records.copyTo(out, this.#nameAt.get(c), this.#nameLength.get(c));
      const spec = this.#specAt.get(c);
      if (spec >= 0) records.copyTo(out, spec, this.#specLength.get(c));
      out.byte(NEWLINE);
    }
    const byName = (kind: NamedSet["kind"]) =>
      [...this.#sets.values()]
        .filter((s) => s.decl.kind === kind)
        .sort((a, b) => (a.decl.name < b.decl.name ? -1 : a.decl.name > b.decl.name ? 1 : 0));
    const sets = [...byName("set"), ...byName("map")];
    for (const s of sets) {
      out.text(setAddLine(table, { ...s.decl, elements: [] }));
      out.byte(NEWLINE);
    }
    const rulePrefix = `add rule ${this.family} ${this.name} `;
    for (const c of chains) {
      const nameAt = this.#nameAt.get(c);
      const nameLength = this.#nameLength.get(c);
      for (let r = this.#firstRule.get(c); r >= 0; r = this.#nextRule.get(r)) {
        out.text(rulePrefix);
        records.copyTo(out, nameAt, nameLength);
        out.byte(SPACE);
        records.copyTo(out, this.#ruleAt.get(r), this.#ruleLength.get(r));
        out.byte(NEWLINE);
      }
    }
    for (const s of sets) {
      const prefix = `add element ${this.family} ${this.name} ${s.decl.name} `;
      for (const text of s.elements.values()) {
        out.text(prefix);
        out.text(text);
        out.byte(NEWLINE);
      }
    }
    out.flush();
  }

  /** The Dump as one string (tests; `write` is how it is printed). */
  text(): string {
    const pieces: Buffer[] = [];
    this.write((b) => pieces.push(Buffer.from(b)));
    return Buffer.concat(pieces).toString("utf8");
  }
}
