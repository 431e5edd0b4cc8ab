/**
 * The depth-first walk's layout of a compiled rule set: every chain's rules one after another
 * in a few flat arrays shared by the whole rule set, chains by number.
 *
 * Why: a new connection to a random service meets rules no recent packet touched, and the walk
 * then waits on memory rather than computes (profiled on 10,000 services: most of the walk's
 * time was spent loading a chain's object, then each of its per-rule arrays, each a separate
 * allocation). Here a rule's target kind and jump are two numbers next to its neighbours', its
 * fixed probability a number in one typed array, and the chains are laid out in the rule set's
 * order, so a service's KUBE-SVC chain and its KUBE-SEP chains (declared together) share a few
 * cache lines. The compiled matchers and targets are the chains' own (rule-compile.ts, the
 * registry's `compile`): this file only lays them out.
 *
 * Every number the walk reads of a rule is in one record of RECORD words (`records`), not in
 * one array per kind: a service's rules are then one run of memory, where one array per kind
 * made a page and a line per kind (on a 320,000-rule set each array is megabytes, and each
 * first touch of a page on this virtual machine is a page walk). Fixed probabilities and
 * matchers are numbered (`probabilities`, `matchers`): rules share a few of each (kube-proxy's
 * endpoint shares; one port check per port), so those tables stay in the caches.
 */
import type { TargetApply } from "../targets/extension.js";
import { fixedNatOf } from "../targets/nat-translation.js";
import {
  resolveJump,
  type CompiledChain,
  type CompiledRuleSet,
  type CompiledTable,
} from "./chain-index.js";
import { destinationTable, type DestinationTable } from "./dest-table.js";
import type { RuleMatcher } from "./rule-compile.js";

/** Words per rule in `records`. */
export const RECORD = 8;
/** A rule's words (at `RECORD * at + ...`). */
/** What it does (NO_TARGET, JUMP, GOTO, APPLY) with the SOURCE, FIXED_DNAT, DEST bits. */
export const OP = 0;
/** The jump's chain number (FIXED_DNAT: the port). */
export const ARG = 1;
/** The IPv4 `-s` network (FIXED_DNAT: the address) and mask (`ipv4SourceHolds`). */
export const SRC_NET = 2;
export const SRC_MASK = 3;
/** The IPv4 `-d` network and mask (`ipv4DestinationHolds`) when DEST is set. */
export const DST_NET = 4;
export const DST_MASK = 5;
/**
 * The number in `probabilities` of the probability the rest of its condition (without the
 * `-s` and `-d` of the record) holds with for every packet, or -1: call the matcher.
 */
export const FIXED = 6;
/** The number in `matchers` of the rest of its condition. */
export const MATCHER = 7;

/** What a rule does when it matches (`records[RECORD * at + OP] & TARGET_BITS`). */
export const NO_TARGET = 0;
export const JUMP = 1;
export const GOTO = 2;
/** A target extension: `appliers[at]`. */
export const APPLY = 3;
export const TARGET_BITS = 3;
/** In OP: the rule has an IPv4 `-s` test (SRC_NET, SRC_MASK). */
export const SOURCE = 4;
/** In OP: that test is negated. */
export const SOURCE_NEGATED = 8;
/**
 * In OP of an APPLY rule without `-s`: its target maps the destination of every IPv4 packet
 * with ports (`fixedNatHolds`) to one address and port, SRC_NET and ARG (`fixedNatOf`;
 * kube-proxy's DNAT). The walk applies it from these numbers and loads nothing of the rule's
 * target; for other packets it calls `appliers[at]`.
 */
export const FIXED_DNAT = 16;
/** In OP: the rule has an IPv4 `-d` test (DST_NET, DST_MASK). */
export const DEST = 32;
/** In OP: that test is negated. */
export const DEST_NEGATED = 64;

/** `spans[3 * n + 2]`: the chain has a destination index; and a table of it. */
export const INDEXED = 1;
export const TABLED = 2;
/**
 * `spans[3 * n + 2]`: the chain is a DNAT leaf (kube-proxy's KUBE-SEP-…): no index, its last
 * rule a FIXED_DNAT without `-s` or `-d`, every rule before it with an IPv4 `-s` test and no
 * `-d` in the record. A packet that passes none of the `-s` tests meets only the DNAT rule
 * (the walk tests a rule's `-s` first and goes on when it fails, whatever the rest of the
 * condition), which the walk can tell before evaluating anything (`Walker.leaf`).
 */
export const LEAF = 4;

/** ARG of a jump whose chain does not exist. */
export const MISSING = -1;

export interface DenseRuleSet {
  /** The compiled chains by number (for what the hot loop does not read: index, names). */
  readonly chains: readonly CompiledChain[];
  /**
   * Per chain number: its first rule's position, its rule count, and INDEXED if it has a
   * destination index, TABLED if that index is also in `tables` (IPv4 packets use the table).
   */
  readonly spans: Int32Array;
  /** Per chain number: its destination index as numbers (dest-table.ts), if it has one. */
  readonly tables: readonly (DestinationTable | undefined)[];
  /** Per rule position, its record of RECORD numbers (OP, ARG, ..., MATCHER above). */
  readonly records: Int32Array;
  /** The fixed probabilities the records' FIXED number (every distinct one once). */
  readonly probabilities: Float64Array;
  /**
   * The rest of the rules' conditions (`CompiledCondition.rest`: without `-s` and `-d`), each
   * distinct one once, by the records' MATCHER number. A host `-d` in a chain with a
   * destination index is not tested at all: the index only offers a rule to packets to its
   * address (chain-index.ts).
   */
  readonly matchers: readonly RuleMatcher[];
  readonly appliers: readonly (TargetApply | undefined)[];
  /** `table/CHAIN#n` per rule position. */
  readonly labels: readonly string[];
  /** Chain numbers by chain. */
  readonly numbers: ReadonlyMap<CompiledChain, number>;
}

const dense = new WeakMap<CompiledRuleSet, DenseRuleSet>();

/** The mask of a /32. */
const HOST = 0xffffffff;

/** The layout of an indexed compiled rule set (made once per rule set). */
export function denseRuleSet(compiled: CompiledRuleSet): DenseRuleSet {
  const hit = dense.get(compiled);
  if (hit !== undefined) return hit;
  const chains: CompiledChain[] = [];
  /** Each chain's table (its jumps are resolved there). */
  const tableOf: CompiledTable[] = [];
  const numbers = new Map<CompiledChain, number>();
  let rules = 0;
  for (const table of compiled.tables.values())
    for (const chain of table.chains.values()) {
      numbers.set(chain, chains.length);
      chains.push(chain);
      tableOf.push(table);
      rules += chain.rules.length;
    }
  const spans = new Int32Array(chains.length * 3);
  const records = new Int32Array(rules * RECORD);
  const probabilities: number[] = [];
  const probabilityNumbers = new Map<number, number>();
  const matchers: RuleMatcher[] = [];
  const matcherNumbers = new Map<RuleMatcher, number>();
  const appliers: (TargetApply | undefined)[] = [];
  const labels: string[] = [];
  const tables = chains.map((c) => (c.index === undefined ? undefined : destinationTable(c.index)));
  let at = 0;
  chains.forEach((chain, n) => {
    spans[3 * n] = at;
    spans[3 * n + 1] = chain.rules.length;
    spans[3 * n + 2] =
      chain.index === undefined ? 0 : tables[n] === undefined ? INDEXED : INDEXED | TABLED;
    for (let i = 0; i < chain.rules.length; i++, at++) {
      const r = RECORD * at;
      const kind = chain.kinds[i];
      const sub = resolveJump(tableOf[n]!, chain, i);
      const c = chain.conditions![i]!;
      const what =
        kind === undefined ? NO_TARGET : kind === "jump" ? JUMP : kind === "goto" ? GOTO : APPLY;
      const source =
        c.source === undefined ? 0 : c.source.negated ? SOURCE | SOURCE_NEGATED : SOURCE;
      const applier = chain.appliers![i];
      const nat = c.source === undefined ? fixedNatOf(applier) : undefined;
      records[r + ARG] = sub === undefined ? MISSING : numbers.get(sub)!;
      records[r + SRC_NET] = c.source?.network ?? 0;
      records[r + SRC_MASK] = c.source?.mask ?? 0;
      let fixed = 0;
      if (what === APPLY && nat?.manip === "dst" && nat.ip.family === "IPv4") {
        fixed = FIXED_DNAT;
        records[r + ARG] = nat.port;
        records[r + SRC_NET] = nat.ip.value;
      }
      const d = c.destination;
      let dest = 0;
      if (d !== undefined && !(chain.index !== undefined && !d.negated && d.mask === HOST)) {
        dest = d.negated ? DEST | DEST_NEGATED : DEST;
        records[r + DST_NET] = d.network;
        records[r + DST_MASK] = d.mask;
      }
      records[r + OP] = what | source | fixed | dest;
      records[r + FIXED] =
        c.restConstant === undefined
          ? -1
          : numberOf(probabilityNumbers, probabilities, c.restConstant);
      records[r + MATCHER] = numberOf(matcherNumbers, matchers, c.rest);
      appliers.push(applier);
      labels.push(chain.labels[i]!);
    }
    if (chain.index === undefined && isLeaf(records, spans[3 * n]!, at)) spans[3 * n + 2] = LEAF;
  });
  const layout = {
    chains,
    spans,
    tables,
    records,
    probabilities: Float64Array.from(probabilities),
    matchers,
    appliers,
    labels,
    numbers,
  };
  dense.set(compiled, layout);
  return layout;
}

/** Whether the records `[from, to)` make a DNAT leaf chain (see LEAF). */
function isLeaf(records: Int32Array, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let at = from; at < to; at++) {
    const word = records[RECORD * at + OP]!;
    if ((word & DEST) !== 0) return false;
    if (at === to - 1) return (word & TARGET_BITS) === APPLY && (word & FIXED_DNAT) !== 0;
    if ((word & SOURCE) === 0) return false;
  }
  return false;
}

/** `value`'s number in `list` (added at the end if new). */
function numberOf<T>(numbers: Map<T, number>, list: T[], value: T): number {
  let k = numbers.get(value);
  if (k === undefined) {
    numbers.set(value, (k = list.length));
    list.push(value);
  }
  return k;
}
