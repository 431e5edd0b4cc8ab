/**
 * A flow cache in front of the walk, in the manner of Open vSwitch's megaflows: a trace's
 * outcomes are kept under a key made of the packet fields its walk could depend on, so a later
 * packet that agrees on them gets the same outcomes without a walk.
 *
 * The key holds exactly: family, protocol, destination, destination port, and the caller's
 * `origin` and `inInterface`. Of the source address it holds only the leading bits the walk
 * consulted (flow-reads.ts), and the source port only when a condition read it. Everything else
 * a new connection's first packet carries is fixed (mark 0, conntrack NEW, no fragment).
 * Entries live in buckets by destination, each with its own source mask; a lookup scans the
 * destination's bucket (kept short). Any entry that matches is right for the packet: each is
 * exact for every packet that agrees with it on its key.
 *
 * The outcomes of an entry are kept as plain values (see Entry). The source address and port of an
 * outcome are the packet's own unless SNAT/MASQUERADE wrote them, so the entry notes which
 * ones came from the packet and a hit fills in the new packet's. A trace is not cached when
 * that cannot be told for certain, or when it consulted state that may change between traces
 * (ipsets, `recent` lists, IPVS), or used a custom match evaluator.
 */
import { joinHostPort, formatIP, maskValue4, maskValue6 } from "../../net/index.js";
import type { Packet, RuleSet } from "../model.js";
import { targetSourcePorts } from "../registry.js";
import type { FlowRecorder } from "./flow-reads.js";
import { portClass } from "./nat-choice.js";
import { outcomeRecord, Printer, type BuiltOutcome, type OriginalTuple } from "./outcomes.js";
import type { Arrival } from "./tracer.js";
import type { Delivery, TraceOutcome, TraceProtocol, TraceStep, TraceVerdict } from "./result.js";

/** Outcomes and their explanation steps (by position), as `assemble` takes them. */
export interface RebuiltOutcomes {
  readonly outcomes: readonly TraceOutcome[];
  readonly explanations: readonly (readonly TraceStep[])[];
}

/**
 * Depth-first walks that evaluated fewer rule conditions than this, without a split, are not
 * kept: walking such a packet again costs about what a hit costs (kube-proxy: a packet to no
 * service, or to a closed port), and every entry kept costs the garbage collector.
 */
export const FLOW_CACHE_MIN_COST = 24;

/** Entries kept per dataplane and mode; beyond that the cache starts afresh. */
export const FLOW_CACHE_LIMIT = 1 << 15;

/**
 * An entry: its outcomes packed into one array of plain values. Whatever an entry keeps
 * survives into the old generation, where each object costs the garbage collector more than
 * building the outcomes again on a hit (objects that die young are cheap). Per outcome:
 * verdict, destination address text ("" without DNAT), destination port, `destination`,
 * masquerade, probability, mark, mark text, delivery, conntrack kept, own source, source
 * text, own source port, source port, `sourcePorts` ("" without), explanation steps (with
 * the verdict), position of the `snat` step (-1: none), path. Steps and path are frozen and
 * shared by the results built from the entry.
 */
type Entry = readonly EntrySlot[];
type EntrySlot = string | number | boolean | readonly TraceStep[] | readonly string[];
/** Slots per outcome. */
const ENTRY_SLOTS = 18;

export interface FlowCacheStats {
  readonly hits: number;
  readonly misses: number;
  /** Traces that could not be cached (see the module comment). */
  readonly uncacheable: number;
  readonly entries: number;
  /** Distinct source masks (leading bits, source port read or not) among the entries. */
  readonly masks: number;
}

/** The caller's choices that are part of the key (the rest is the packet). */
export interface FlowKeyInput {
  readonly packet: Packet;
  readonly origin: string | undefined;
  readonly inInterface: string | undefined;
}

/**
 * One entry and its key, in its destination's bucket. The key's source part is the address
 * under `srcMask` (`srcBits` leading bits).
 */
interface Slot {
  readonly protocol: Packet["protocol"];
  readonly dport: number;
  readonly origin: string | undefined;
  readonly inInterface: string | undefined;
  readonly srcBits: number;
  readonly srcMask: number | bigint;
  readonly src: number | bigint;
  /** The source port when the walk read it, else -1. */
  readonly sport: number;
  /** The first port of the source port's class when only that was read (portClass), else -1. */
  readonly sportClass: number;
  readonly arrival: Arrival;
  readonly entry: Entry;
}

const NO_NOTES: readonly string[] = Object.freeze([]);

/** Entries kept per destination: a bucket is scanned, so it stays short. */
const BUCKET_LIMIT = 64;

function destinationKey(p: Packet): number | string {
  // `| 0`: a small integer, which a Map hashes faster than the unsigned value (a heap number).
  return p.dst.family === "IPv4" ? p.dst.value | 0 : `6:${p.dst.value.toString(16)}`;
}

/** IPv4 as a signed 32-bit value (a small integer, not a heap number, in the slot). */
function masked(p: Packet, mask: number | bigint): number | bigint {
  const a = p.src;
  return a.family === "IPv4" ? a.value & (mask as number) : a.value & (mask as bigint);
}

function matches(s: Slot, k: FlowKeyInput): boolean {
  const p = k.packet;
  return (
    s.protocol === p.protocol &&
    s.dport === p.dport &&
    s.origin === k.origin &&
    s.inInterface === k.inInterface &&
    (s.sport < 0 || s.sport === p.sport) &&
    (s.sportClass < 0 || s.sportClass === portClass(p.sport).from) &&
    masked(p, s.srcMask) === s.src
  );
}

/** Whether any rule maps the source port into a range (then an unchanged port is ambiguous). */
const writesSport = new WeakMap<RuleSet, boolean>();
function ruleSetWritesSport(rs: RuleSet | undefined): boolean {
  if (rs === undefined) return false;
  const hit = writesSport.get(rs);
  if (hit !== undefined) return hit;
  const found = rs.tables.some((t) =>
    t.chains.some((c) =>
      c.rules.some((r) => r.target !== undefined && targetSourcePorts(r.target) !== undefined),
    ),
  );
  writesSport.set(rs, found);
  return found;
}

export class FlowCache {
  /** Slots by destination address (the family is in the key's type). */
  private buckets = new Map<number | string, Slot[]>();
  private size = 0;
  /** Distinct source masks: leading bits × 4, + 1 when the source port is read, + 2 its class. */
  private readonly masks = new Set<number>();
  private hits = 0;
  private misses = 0;
  private uncacheable = 0;

  constructor(private readonly ruleSets: { readonly [family: string]: RuleSet | undefined }) {}

  /**
   * The outcomes for `k`'s packet if an entry holds them, printed for this packet (whose
   * addresses print as `srcText` and `dstText`).
   */
  lookup(
    k: FlowKeyInput,
    srcText: string,
    dstText: string,
  ): { readonly arrival: Arrival; readonly outcomes: RebuiltOutcomes } | undefined {
    const bucket = this.buckets.get(destinationKey(k.packet));
    if (bucket !== undefined)
      for (const s of bucket)
        if (matches(s, k)) {
          this.hits++;
          return { arrival: s.arrival, outcomes: rebuild(s.entry, k.packet, srcText, dstText) };
        }
    this.misses++;
    return undefined;
  }

  /** Keeps a walked trace's outcomes, when they can be reused exactly. */
  insert(
    k: FlowKeyInput,
    recorder: FlowRecorder,
    arrival: Arrival,
    built: readonly BuiltOutcome[],
  ): void {
    const entry = recorder.volatile ? undefined : entryOf(k.packet, built, this.ruleSets);
    if (entry === undefined) {
      this.uncacheable++;
      return;
    }
    if (this.size >= FLOW_CACHE_LIMIT) {
      this.buckets = new Map();
      this.size = 0;
      this.masks.clear();
    }
    const p = k.packet;
    const srcMask =
      p.family === "IPv4" ? maskValue4(recorder.srcBits) | 0 : maskValue6(recorder.srcBits);
    const slot: Slot = {
      protocol: p.protocol,
      dport: p.dport,
      origin: k.origin,
      inInterface: k.inInterface,
      srcBits: recorder.srcBits,
      srcMask,
      src: masked(p, srcMask),
      sport: recorder.sportRead ? p.sport : -1,
      sportClass: recorder.sportClassRead && !recorder.sportRead ? portClass(p.sport).from : -1,
      // Decided by the source bits the key holds (flow-reads.ts `addressing`).
      arrival: arrival.notes.length === 0 ? { ...arrival, notes: NO_NOTES } : arrival,
      entry,
    };
    const key = destinationKey(p);
    const bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, [slot]);
    else {
      if (bucket.length >= BUCKET_LIMIT) {
        bucket.shift();
        this.size--;
      }
      bucket.push(slot);
    }
    this.size++;
    this.masks.add(slot.srcBits * 4 + (slot.sport >= 0 ? 1 : slot.sportClass >= 0 ? 2 : 0));
  }

  stats(): FlowCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      uncacheable: this.uncacheable,
      entries: this.size,
      masks: this.masks.size,
    };
  }
}

function entryOf(
  packet: Packet,
  built: readonly BuiltOutcome[],
  ruleSets: { readonly [family: string]: RuleSet | undefined },
): Entry | undefined {
  const portWritten = ruleSetWritesSport(ruleSets[packet.family]);
  let own: string | undefined;
  // Allocated at its final length: an entry lives long, and a grown array leaves a copy behind.
  const out = new Array<EntrySlot>(1 + ENTRY_SLOTS * built.length);
  out[0] = built.length;
  let j = 1;
  for (const b of built) {
    const p = b.parts;
    const o = b.outcome;
    const ownSrc = p.src === packet.src;
    // An equal address that is another object came from a rule (SNAT to this very address):
    // whether a new packet's source would be there too cannot be told.
    if (!ownSrc && p.src.value === packet.src.value) return undefined;
    const ownSport = p.sport === packet.sport;
    if (ownSport && portWritten) return undefined;
    let snatAt = -1;
    for (let i = 0; i < b.steps.length; i++) {
      const s = b.steps[i]!;
      if (s.kind !== "snat") continue;
      // SNAT happens once, in a nat table, on the packet's own source, and nothing changes
      // the source after it: the step goes from the packet's tuple to the outcome's.
      own ??= joinHostPort(formatIP(packet.src), packet.sport);
      if (snatAt >= 0 || s.from !== own || s.to !== joinHostPort(formatIP(p.src), p.sport))
        return undefined;
      snatAt = i;
    }
    // Texts that recur across entries (the mark, a masquerade address, a port range) are kept
    // once: whatever an entry keeps is copied by every young collection until it is promoted.
    out[j++] = o.verdict;
    out[j++] = p.dnat ? (o.conntrack?.reply.src ?? formatIP(p.dst)) : "";
    out[j++] = p.dport;
    out[j++] = o.destination ?? "";
    out[j++] = o.masquerade;
    out[j++] = o.probability;
    out[j++] = p.mark;
    out[j++] = markTexts.of(o.mark);
    out[j++] = o.delivery;
    out[j++] = o.conntrack !== undefined;
    out[j++] = ownSrc;
    out[j++] = ownSrc ? "" : sourceTexts.ip(p.src);
    out[j++] = ownSport;
    out[j++] = p.sport;
    out[j++] = o.sourcePorts === undefined ? "" : portTexts.of(o.sourcePorts);
    // Shared with the result being returned, and with every later hit.
    out[j++] = b.steps.length === 1 ? verdictOnly(b.steps[0]!) : Object.freeze(b.steps);
    out[j++] = snatAt;
    out[j++] = Object.freeze(o.path);
  }
  return out;
}

/** The last text seen, returned for an equal one: entries share one copy of a recurring text. */
class LastText {
  private last = "";
  of(s: string): string {
    if (s === this.last) return this.last;
    this.last = s;
    return s;
  }
}

const markTexts = new LastText();
const portTexts = new LastText();
const sourceTexts = new Printer();

/** One frozen explanation per verdict and delivery, for traces without steps: entries share it. */
const verdictSteps = new Map<string, readonly TraceStep[]>();
function verdictOnly(step: TraceStep): readonly TraceStep[] {
  if (step.kind !== "verdict") return Object.freeze([step]);
  const key = `${step.verdict} ${step.where}`;
  let steps = verdictSteps.get(key);
  if (steps === undefined) verdictSteps.set(key, (steps = Object.freeze([Object.freeze(step)])));
  return steps;
}

/** The entry's outcomes for `packet`, built as outcomes.ts's `outcomeOf` builds them. */
function rebuild(entry: Entry, packet: Packet, srcText: string, dstText: string): RebuiltOutcomes {
  const original: OriginalTuple = {
    src: srcText,
    sport: packet.sport,
    dst: dstText,
    dport: packet.dport,
  };
  const proto = printedProtocol(packet);
  const outcomes: TraceOutcome[] = [];
  const explanations: (readonly TraceStep[])[] = [];
  let lastSrc = "";
  let lastSport = -1;
  let lastSource = "";
  let i = 1;
  for (let n = entry[0] as number; n > 0; n--) {
    const verdict = entry[i++] as TraceVerdict;
    const toText = entry[i++] as string;
    const dport = entry[i++] as number;
    const destination = entry[i++] as string;
    const masquerade = entry[i++] as boolean;
    const probability = entry[i++] as number;
    const mark = entry[i++] as number;
    const markText = entry[i++] as string;
    const delivery = entry[i++] as Delivery;
    const tracked = entry[i++] as boolean;
    const src = (entry[i++] as boolean) ? srcText : (entry[i] as string);
    i++;
    const sport = (entry[i++] as boolean) ? packet.sport : (entry[i] as number);
    i++;
    const sourcePorts = entry[i++] as string;
    const steps = entry[i++] as readonly TraceStep[];
    const snatAt = entry[i++] as number;
    // Shared by every result from this entry (frozen: results are read-only data).
    const path = entry[i++] as readonly string[];
    // No DNAT: the destination is the packet's own (it is in the key).
    const dst = toText === "" ? dstText : toText;
    // Masqueraded outcomes mostly share their source: one text per result.
    if (masquerade && (src !== lastSrc || sport !== lastSport)) {
      lastSrc = src;
      lastSport = sport;
      lastSource = joinHostPort(src, sport);
    }
    const outcome = outcomeRecord({
      verdict,
      destination: toText !== "" ? destination : undefined,
      masquerade,
      probability,
      path,
      mark: markText,
      source: masquerade ? lastSource : undefined,
      sourcePorts: sourcePorts !== "" ? sourcePorts : undefined,
      delivery,
      conntrack: tracked
        ? {
            proto,
            family: packet.family,
            original,
            reply: { src: dst, sport: dport, dst: src, dport: sport },
            dnat: toText !== "",
            snat: masquerade,
            mark,
          }
        : undefined,
    });
    outcomes.push(outcome);
    explanations.push(snatAt < 0 ? steps : withSnat(steps, snatAt, original, outcome));
  }
  return { outcomes, explanations };
}

/** The explanation with its `snat` step for this packet: from its own tuple to its source. */
function withSnat(
  kept: readonly TraceStep[],
  snatAt: number,
  original: OriginalTuple,
  outcome: TraceOutcome,
): readonly TraceStep[] {
  const copy = kept.slice();
  copy[snatAt] = {
    kind: "snat",
    from: joinHostPort(original.src, original.sport),
    to: outcome.source!,
  };
  return copy;
}

function printedProtocol(p: Packet): TraceProtocol {
  return p.protocol === "icmpv6" ? "icmp" : p.protocol;
}
