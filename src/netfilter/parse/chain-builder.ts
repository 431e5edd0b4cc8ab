/**
 * A chain while the parse fills it. A user chain's builder is also the chain the parse returns:
 * a large dump declares 100,000 user chains, and a second object for each would be that much
 * more for the garbage collector to move while the parse runs. The builder's own state lives in
 * private fields behind prototype accessors, which `Object.keys`, JSON and deep equality do not
 * see, so the returned chain shows exactly the fields of `Chain`, in its order.
 */
import type { Counters, Rule, Target } from "../model.js";

/**
 * The rules of a chain without any yet, shared: a large dump declares every chain before its
 * rules. A chain gets an array of its own with its first rule, and the parse gives one to each
 * chain that is still empty when it is done.
 */
export const NO_RULES = Object.freeze([]) as unknown as Rule[];

type JumpTarget = Extract<Target, { kind: "jump" }>;

/**
 * A `-j CHAIN` / `-g CHAIN` target that also knows the chain's builder (privately: it prints
 * and compares as the plain target), so the checks at COMMIT follow jumps without looking
 * names up among 100,000 chains.
 */
export class ChainJump implements JumpTarget {
  readonly kind = "jump";
  readonly chain: string;
  readonly goto: boolean;
  readonly #to: ChainBuilder;

  constructor(to: ChainBuilder, goto: boolean) {
    this.chain = to.name;
    this.goto = goto;
    this.#to = to;
  }

  get to(): ChainBuilder {
    return this.#to;
  }
}

export class ChainBuilder {
  declare readonly name: string;
  declare rules: Rule[];
  declare policy?: "ACCEPT" | "DROP";
  declare counters?: Counters;
  declare line?: number;
  readonly #builtin: boolean;
  #jump: ChainJump | undefined = undefined;
  #goto: ChainJump | undefined = undefined;
  #reach = 0;
  #next: ChainBuilder | undefined = undefined;
  #deleted = false;

  constructor(name: string, builtin: boolean, counters?: Counters, line?: number) {
    this.#builtin = builtin;
    this.name = name;
    this.rules = NO_RULES;
    if (builtin) this.policy = "ACCEPT";
    if (counters !== undefined) this.counters = counters;
    if (line !== undefined) this.line = line;
  }

  get builtin(): boolean {
    return this.#builtin;
  }

  /** The `-j` (`-g`) target naming this user chain, shared by every rule that jumps here. */
  jumpTarget(goto: boolean): ChainJump {
    if (goto) return (this.#goto ??= new ChainJump(this, true));
    return (this.#jump ??= new ChainJump(this, false));
  }

  /** The built-in hooks that reach this chain, as bits (see the parse's hook check). */
  get reach(): number {
    return this.#reach;
  }
  set reach(bits: number) {
    this.#reach = bits;
  }

  /** The chain declared after this one in its table (see ChainTable). */
  get next(): ChainBuilder | undefined {
    return this.#next;
  }
  set next(c: ChainBuilder | undefined) {
    this.#next = c;
  }

  /** Deleted by `-X` (still linked in declaration order). */
  get deleted(): boolean {
    return this.#deleted;
  }
  set deleted(d: boolean) {
    this.#deleted = d;
  }
}

/**
 * The chains of a table by name, in declaration order. A dump names chains in about the order
 * it declares them (kube-proxy declares a service's chains, then writes their rules and jumps in
 * that order, and the hook check walks them so), so a lookup first tries the chain declared
 * right after the one found last: one string comparison instead of a lookup in a map of
 * 100,000 chains.
 */
export class ChainTable {
  readonly #byName = new Map<string, ChainBuilder>();
  #last: ChainBuilder | undefined;
  #tail: ChainBuilder | undefined;

  get(name: string): ChainBuilder | undefined {
    const next = this.#last?.next;
    if (next !== undefined && next.name === name && !next.deleted) {
      this.#last = next;
      return next;
    }
    const c = this.#byName.get(name);
    if (c !== undefined) this.#last = c;
    return c;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** Declares `c` (its name must be new in the table). */
  add(c: ChainBuilder): void {
    if (this.#tail !== undefined) this.#tail.next = c;
    this.#tail = c;
    this.#byName.set(c.name, c);
  }

  delete(name: string): void {
    const c = this.#byName.get(name);
    if (c === undefined) return;
    c.deleted = true;
    this.#byName.delete(name);
  }

  /** In declaration order. */
  values(): IterableIterator<ChainBuilder> {
    return this.#byName.values();
  }
}
