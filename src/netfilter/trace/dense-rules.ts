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
 */
import type { TargetApply } from "../targets/extension.js";
import { fixedNatOf } from "../targets/nat-translation.js";
import type { CompiledChain, CompiledRuleSet } from "./chain-index.js";
import { destinationTable, type DestinationTable } from "./dest-table.js";
import type { RuleMatcher } from "./rule-compile.js";

/** What a rule does when it matches (`ops[4 * at] & TARGET_BITS`). */
export const NO_TARGET = 0;
export const JUMP = 1;
export const GOTO = 2;
/** A target extension: `appliers[at]`. */
export const APPLY = 3;
export const TARGET_BITS = 3;
/** In `ops[4 * at]`: the rule has an IPv4 `-s` test (network, mask at `4 * at + 2`, `+ 3`). */
export const SOURCE = 4;
/** In `ops[4 * at]`: that test is negated. */
export const SOURCE_NEGATED = 8;
/**
 * In `ops[4 * at]` of an APPLY rule without `-s`: its target maps the destination of every
 * IPv4 packet with ports (`fixedNatHolds`) to one address and port, `ops[4 * at + 2]` and
 * `ops[4 * at + 1]` (`fixedNatOf`; kube-proxy's DNAT). The walk applies it from these numbers
 * and loads nothing of the rule's target; for other packets it calls `appliers[at]`.
 */
export const FIXED_DNAT = 16;
/** In `ops[4 * at]`: the rule has an IPv4 `-d` test (network, mask at `dests[2 * at]`, `+ 1`). */
export const DEST = 32;
/** In `ops[4 * at]`: that test is negated. */
export const DEST_NEGATED = 64;

/** `spans[3 * n + 2]`: the chain has a destination index; and a table of it. */
export const INDEXED = 1;
export const TABLED = 2;

/** `ops[4 * at + 1]` of a jump whose chain does not exist. */
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
  /**
   * Per rule position, four numbers: what it does (NO_TARGET, JUMP, GOTO, APPLY) with the
   * SOURCE and FIXED_DNAT bits, the jump's chain (FIXED_DNAT: the port), the `-s` network
   * (FIXED_DNAT: the address) and mask (`rule-compile.ts`'s `ipv4SourceHolds` tests them
   * without a call).
   */
  readonly ops: Int32Array;
  /**
   * Per rule position, the IPv4 `-d` network and mask (`ipv4DestinationHolds`) when DEST is
   * set. A host `-d` in a chain with a destination index is not tested at all: the index only
   * offers a rule to packets to its address (chain-index.ts).
   */
  readonly dests: Int32Array;
  /**
   * Per rule position: the probability the rest of its condition (without the `-s` of `ops`)
   * holds with for every packet, or -1: call `matchers[at]`.
   */
  readonly constants: Float64Array;
  /** The rest of each rule's condition (`CompiledCondition.rest`: without `-s` and `-d`). */
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
  const numbers = new Map<CompiledChain, number>();
  let rules = 0;
  for (const table of compiled.tables.values())
    for (const chain of table.chains.values()) {
      numbers.set(chain, chains.length);
      chains.push(chain);
      rules += chain.rules.length;
    }
  const spans = new Int32Array(chains.length * 3);
  const ops = new Int32Array(rules * 4);
  const dests = new Int32Array(rules * 2);
  const constants = new Float64Array(rules);
  const matchers: RuleMatcher[] = [];
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
      const kind = chain.kinds[i];
      const sub = chain.jumpTargets[i];
      const c = chain.conditions![i]!;
      const what =
        kind === undefined ? NO_TARGET : kind === "jump" ? JUMP : kind === "goto" ? GOTO : APPLY;
      const source =
        c.source === undefined ? 0 : c.source.negated ? SOURCE | SOURCE_NEGATED : SOURCE;
      const applier = chain.appliers![i];
      const nat = c.source === undefined ? fixedNatOf(applier) : undefined;
      ops[4 * at + 1] = sub === undefined ? MISSING : numbers.get(sub)!;
      ops[4 * at + 2] = c.source?.network ?? 0;
      ops[4 * at + 3] = c.source?.mask ?? 0;
      let fixed = 0;
      if (what === APPLY && nat?.manip === "dst" && nat.ip.family === "IPv4") {
        fixed = FIXED_DNAT;
        ops[4 * at + 1] = nat.port;
        ops[4 * at + 2] = nat.ip.value;
      }
      const d = c.destination;
      let dest = 0;
      if (d !== undefined && !(chain.index !== undefined && !d.negated && d.mask === HOST)) {
        dest = d.negated ? DEST | DEST_NEGATED : DEST;
        dests[2 * at] = d.network;
        dests[2 * at + 1] = d.mask;
      }
      ops[4 * at] = what | source | fixed | dest;
      constants[at] = c.restConstant ?? -1;
      matchers.push(c.rest);
      appliers.push(applier);
      labels.push(chain.labels[i]!);
    }
  });
  const layout = {
    chains,
    spans,
    tables,
    ops,
    dests,
    constants,
    matchers,
    appliers,
    labels,
    numbers,
  };
  dense.set(compiled, layout);
  return layout;
}
