/**
 * Rule shapes: a large dump repeats a few kinds of rule thousands of times, differing only in
 * their values (`-A SEP -m comment --comment ns/svc:http -m tcp -p tcp -j DNAT --to-destination
 * 10.1.2.3:8080`). Once `parseRuleWords` has read one rule, its shape is its words with each
 * value replaced by a slot: the literal words (`!`, `-p tcp`, `-m comment`, option and target
 * names) decide everything the reading decides (which module owns which option, how many
 * arguments follow, the order of the matches), so a later line that has the same literal words
 * in the same places is read the same way. Such a line is matched against the shape by
 * comparing the literal words in place and slicing out the values, with no word array, no
 * option objects and no trie walk; its values are built by the same extensions, shared per slot
 * value.
 *
 * A line is only read by a shape when its words split trivially: single spaces, no tab, no
 * trailing space, and quotes only around whole value words with no backslash. Anything a shape
 * cannot vouch for (a different word, a quote elsewhere, a value the extension refuses, a jump
 * to a name that is a target) returns undefined, and the caller reads the line the general way,
 * which gives the error message or the rule, and the shape of a new kind.
 */
import type { BuildEnv, MatchExtension, ParsedOption } from "../matches/extension.js";
import type { Match } from "../matches/index.js";
import type { IPFamily } from "../../net/index.js";
import type { CIDR } from "../../net/index.js";
import type { Negatable, Rule, TableName } from "../model.js";
import { targetExtension } from "../registry.js";
import type { TargetExtension } from "../targets/extension.js";
import type { Target } from "../targets/index.js";
import {
  checkNegatedPrefixes,
  ifaceName,
  makeRule,
  negatableAddress,
  NO_MATCHES,
  recentMatches,
  type RuleReading,
} from "./rule.js";
import { SharedValues } from "./shared-values.js";

const SPACE = 32;
const QUOTE = 34;

/** A literal word, or the index of a value slot. */
type Item = string | number;

/** An option of a module in a shape: its arguments are slots. */
interface OptionTemplate {
  readonly name: string;
  readonly negated: boolean;
  readonly slots: readonly number[];
}

/**
 * How a shape makes one match (or target) value: a constant when the module has no argument
 * (its value from the rule the shape was learnt from), else by the extension from the slots,
 * shared per slot values.
 */
interface ValueMaker<E, V> {
  readonly ext: E;
  readonly options: readonly OptionTemplate[];
  /** The slots of all options in order; empty for a constant. */
  readonly slots: readonly number[];
  readonly constant: V | undefined;
  readonly shared: SharedValues<V>;
}

interface AddressSlot {
  readonly slot: number;
  readonly negated: boolean;
}

type TargetMaker =
  | { readonly kind: "constant"; readonly value: Target | undefined }
  | { readonly kind: "extension"; readonly maker: ValueMaker<TargetExtension<Target>, Target> }
  | { readonly kind: "jump"; readonly slot: number; readonly goto: boolean };

interface Shape {
  readonly table: TableName;
  readonly items: readonly Item[];
  readonly slotCount: number;
  readonly env: BuildEnv;
  readonly protocol: Negatable<string> | undefined;
  readonly fragment: Negatable<true> | undefined;
  readonly source: AddressSlot | undefined;
  readonly destination: AddressSlot | undefined;
  readonly inInterface: AddressSlot | undefined;
  readonly outInterface: AddressSlot | undefined;
  readonly matches: readonly ValueMaker<MatchExtension<Match>, Match>[];
  readonly target: TargetMaker;
}

/** Shared values per slot: bounded, and off where nearly every value differs (see SharedValues). */
const SHARED_LIMIT = 4096;

/** Shapes tried per line, most recent first. */
const SHAPES = 8;

/** Whether `line` splits into words at its single spaces (quotes aside): see the file comment. */
export function plainSpacing(line: string): boolean {
  return (
    line.indexOf("\t") === -1 &&
    line.indexOf("  ") === -1 &&
    line.charCodeAt(line.length - 1) !== SPACE
  );
}

/** The shapes learnt in one parse (their values are built for its family). */
export class RuleShapes {
  readonly #shapes: Shape[] = [];
  #slots: string[] = [];

  constructor(private readonly family: IPFamily) {}

  /**
   * The rule made of `line` (number `lineNo`) from `from` (the words after `-A CHAIN `) by a
   * known shape of `table`, or undefined. `line` must have `plainSpacing`.
   */
  read(
    line: string,
    lineNo: number,
    from: number,
    table: TableName,
    jumpTarget: (chain: string, goto: boolean) => Target,
  ): Rule | undefined {
    const quoted = line.indexOf('"', from) !== -1;
    if (quoted && line.indexOf("\\", from) !== -1) return undefined;
    const shapes = this.#shapes;
    for (let k = 0; k < shapes.length; k++) {
      const shape = shapes[k] as Shape;
      if (shape.table !== table || !this.#fill(shape, line, from, quoted)) continue;
      const rule = this.#make(shape, jumpTarget, line.slice(from), lineNo);
      if (rule === undefined) return undefined;
      if (k > 0) {
        shapes.splice(k, 1);
        shapes.unshift(shape);
      }
      return rule;
    }
    return undefined;
  }

  /**
   * Learns the shape of a rule `parseRuleWords` read from `words[start..]` (with `raw`, their
   * texts as written) of a line with `plainSpacing`.
   */
  learn(
    words: readonly string[],
    raw: readonly string[],
    start: number,
    reading: RuleReading,
    rule: Rule,
    table: TableName,
  ): void {
    if (reading.unique || reading.roles.length !== words.length - start) return;
    const items: Item[] = [];
    // Slot of each module argument: owner (-1: the target) → option → argument.
    const argSlots = new Map<number, number[][]>();
    const slotOf: { -readonly [K in "source" | "destination" | "in" | "out" | "jump"]?: number } =
      {};
    let slots = 0;
    for (let k = 0; k < reading.roles.length; k++) {
      const role = reading.roles[k]!;
      const word = words[start + k] as string;
      if (role.kind === "literal") {
        // A literal is compared as written: one that was quoted or empty is not a shape's word.
        if (word.length === 0 || raw[start + k] !== word) return;
        items.push(word);
        continue;
      }
      const slot = slots++;
      items.push(slot);
      if (role.kind !== "arg") {
        slotOf[role.kind] = slot;
        continue;
      }
      let owner = argSlots.get(role.owner);
      if (owner === undefined) argSlots.set(role.owner, (owner = []));
      (owner[role.option] ??= [])[role.arg] = slot;
    }
    const env: BuildEnv = { family: this.family, protocol: rule.protocol };
    const maker = <E, V>(
      ext: E,
      options: readonly ParsedOption[],
      owner: number,
      value: V | undefined,
    ): ValueMaker<E, V> => {
      const perOption = argSlots.get(owner) ?? [];
      const templates = options.map((o, i) => ({
        name: o.name,
        negated: o.negated,
        slots: perOption[i] ?? [],
      }));
      const all = templates.flatMap((t) => t.slots);
      return {
        ext,
        options: templates,
        slots: all,
        constant: all.length === 0 ? value : undefined,
        shared: new SharedValues<V>(SHARED_LIMIT),
      };
    };
    const address = (what: "source" | "destination" | "in" | "out", negated: boolean) => {
      const slot = slotOf[what];
      return slot === undefined ? undefined : { slot, negated };
    };
    let target: TargetMaker;
    if (reading.target !== undefined)
      target = {
        kind: "extension",
        maker: maker(reading.target.ext, reading.target.options, -1, rule.target),
      };
    else if (slotOf.jump !== undefined)
      target = { kind: "jump", slot: slotOf.jump, goto: reading.goto };
    else target = { kind: "constant", value: rule.target };
    const shape: Shape = {
      table,
      items,
      slotCount: slots,
      env,
      protocol: rule.protocol,
      fragment: rule.fragment,
      source: address("source", rule.source?.negated ?? false),
      destination: address("destination", rule.destination?.negated ?? false),
      inInterface: address("in", rule.inInterface?.negated ?? false),
      outInterface: address("out", rule.outInterface?.negated ?? false),
      matches: reading.modules.map((m, i) => maker(m.ext, m.options, i, rule.matches[i])),
      target,
    };
    if (slots > this.#slots.length) this.#slots = new Array<string>(slots).fill("");
    this.#shapes.unshift(shape);
    if (this.#shapes.length > SHAPES) this.#shapes.pop();
  }

  /** Whether `line` from `from` has the shape's words; its values go to the slots. */
  #fill(shape: Shape, line: string, from: number, quoted: boolean): boolean {
    const items = shape.items;
    const slots = this.#slots;
    const n = line.length;
    let p = from;
    for (let k = 0; k < items.length; k++) {
      if (k > 0) {
        if (line.charCodeAt(p) !== SPACE) return false;
        p++;
      }
      const item = items[k] as Item;
      if (typeof item === "string") {
        if (!line.startsWith(item, p)) return false;
        p += item.length;
      } else if (quoted && line.charCodeAt(p) === QUOTE) {
        const close = line.indexOf('"', p + 1);
        if (close === -1) return false;
        slots[item] = line.slice(p + 1, close);
        p = close + 1;
      } else {
        let end = line.indexOf(" ", p);
        if (end === -1) end = n;
        if (quoted) {
          const q = line.indexOf('"', p);
          if (q !== -1 && q < end) return false;
        }
        if (end === p) return false;
        slots[item] = line.slice(p, end);
        p = end;
      }
    }
    return p === n;
  }

  /** The rule of the filled slots; undefined if a value is refused (the general path says why). */
  #make(
    shape: Shape,
    jumpTarget: (chain: string, goto: boolean) => Target,
    written: string,
    line: number,
  ): Rule | undefined {
    const slots = this.#slots;
    try {
      const source = this.#address(shape.source, "-s");
      if (shape.source !== undefined && source === undefined) return undefined;
      const destination = this.#address(shape.destination, "-d");
      if (shape.destination !== undefined && destination === undefined) return undefined;
      checkNegatedPrefixes(source, destination);
      const inInterface = this.#iface(shape.inInterface);
      const outInterface = this.#iface(shape.outInterface);
      const makers = shape.matches;
      let matches = NO_MATCHES;
      if (makers.length > 3) matches = makers.map((m) => this.#value(m, shape.env));
      else if (makers.length > 0) {
        const m0 = this.#value(makers[0]!, shape.env);
        const m1 = makers.length > 1 ? this.#value(makers[1]!, shape.env) : undefined;
        const m2 = makers.length > 2 ? this.#value(makers[2]!, shape.env) : undefined;
        matches = recentMatches(makers.length, m0, m1, m2);
      }
      let target: Target | undefined;
      const t = shape.target;
      if (t.kind === "constant") target = t.value;
      else if (t.kind === "extension") target = this.#value(t.maker, shape.env);
      else {
        const name = slots[t.slot] as string;
        // A name that is a target (or not a chain's) is read the general way.
        if (name === "" || name.startsWith("-") || (!t.goto && targetExtension(name) !== undefined))
          return undefined;
        target = jumpTarget(name, t.goto);
      }
      return makeRule({
        matches,
        protocol: shape.protocol,
        source,
        destination,
        inInterface,
        outInterface,
        fragment: shape.fragment,
        target,
        counters: undefined,
        written,
        line,
      });
    } catch {
      // A value the reading refuses: the general path reads the line again for its message.
      return undefined;
    }
  }

  /** `-s`/`-d` (`what`) from its slot; undefined for a list, which only the general path reads. */
  #address(a: AddressSlot | undefined, what: string): Negatable<CIDR> | undefined {
    if (a === undefined) return undefined;
    const v = this.#slots[a.slot] as string;
    if (v.includes(",")) return undefined;
    return negatableAddress(v, this.family, a.negated, what);
  }

  #iface(a: AddressSlot | undefined): Negatable<string> | undefined {
    return a === undefined
      ? undefined
      : { value: ifaceName(this.#slots[a.slot] as string), negated: a.negated };
  }

  /** A match or target value from the slots (shared per slot values). */
  #value<V>(
    maker: ValueMaker<{ build(options: readonly ParsedOption[], env: BuildEnv): V }, V>,
    env: BuildEnv,
  ): V {
    if (maker.constant !== undefined) return maker.constant;
    const slots = this.#slots;
    const key =
      maker.slots.length === 1
        ? (slots[maker.slots[0] as number] as string)
        : maker.slots.map((s) => slots[s]).join("\n");
    let value = maker.shared.get(key);
    if (value === undefined) {
      const options: ParsedOption[] = maker.options.map((o) => ({
        name: o.name,
        negated: o.negated,
        args: o.slots.map((s) => slots[s] as string),
      }));
      value = maker.ext.build(options, env);
      maker.shared.set(key, value);
    }
    return value;
  }
}
