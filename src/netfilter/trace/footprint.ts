/**
 * Which of a packet's per-branch fields a table walk can depend on. Statistic branches reach
 * FORWARD and POSTROUTING with different destinations (one per endpoint); when no rule
 * reachable from the hook's chain reads or writes the destination (kube-proxy's KUBE-FORWARD
 * and KUBE-POSTROUTING look only at marks and conntrack state), one walk serves them all.
 *
 * The footprint is a bit set over the fields that differ between branches (addresses, ports,
 * interfaces, marks); the other packet fields and the branch flags are always compared. A
 * field is in the footprint when a condition reads it or a target writes it (a written field
 * must be equal for the exit to be reused as is). Anything not known here counts as reading
 * every field, so such walks are only reused for equal packets.
 */
import type { Match, Rule } from "../model.js";
import type { CompiledChain } from "./chain-index.js";
import { hashesAddress } from "./nat-choice.js";
import { ctstateOnly } from "./rule-match.js";
import type { Packet } from "../model.js";

export const SRC = 1;
export const SPORT = 2;
export const DST = 4;
export const DPORT = 8;
export const IN_IFACE = 16;
export const OUT_IFACE = 32;
export const MARK = 64;
export const CONNMARK = 128;
export const ALL = 255;

function matchReads(m: Match): number {
  switch (m.module) {
    case "comment":
    case "statistic":
      return 0;
    case "mark":
      return MARK;
    case "connmark":
      return CONNMARK;
    case "conntrack":
      // --ctstate alone reads only the conntrack state (always compared).
      return ctstateOnly(m, { ctState: [] } as unknown as Packet) !== undefined ? 0 : ALL;
    case "tcp":
    case "udp":
      return SPORT | DPORT;
    default:
      return ALL;
  }
}

function ruleFootprint(r: Rule): number {
  let f = 0;
  if (r.source !== undefined) f |= SRC;
  if (r.destination !== undefined) f |= DST;
  if (r.inInterface !== undefined) f |= IN_IFACE;
  if (r.outInterface !== undefined) f |= OUT_IFACE;
  for (const m of r.matches) f |= matchReads(m);
  const t = r.target;
  if (t === undefined) return f;
  switch (t.kind) {
    case "ACCEPT":
    case "DROP":
    case "REJECT":
    case "RETURN":
    case "jump":
    case "LOG":
    case "NFLOG":
    case "NOTRACK":
    case "CT":
      return f;
    case "MARK":
      return f | MARK;
    case "CONNMARK":
      return f | MARK | CONNMARK;
    case "DNAT":
      // An address range is chosen by a hash of the source (nat-choice.ts).
      return f | DST | DPORT | (hashesAddress(t.to) ? SRC : 0);
    case "SNAT":
      // An address range is chosen by a hash of the source seeded with the destination.
      return f | SRC | SPORT | (hashesAddress(t.to) ? DST : 0);
    case "MASQUERADE":
      return f | SRC | SPORT | OUT_IFACE;
    default:
      return ALL;
  }
}

const cache = new WeakMap<CompiledChain, number>();

/** The footprint of walking `chain` and every chain it can jump or go to. */
export function footprint(chain: CompiledChain): number {
  const hit = cache.get(chain);
  if (hit !== undefined) return hit;
  let f = 0;
  const seen = new Set<CompiledChain>([chain]);
  const todo = [chain];
  while (todo.length > 0 && f !== ALL) {
    const c = todo.pop()!;
    c.rules.forEach((r, i) => {
      f |= ruleFootprint(r);
      if (r.target?.kind !== "jump") return;
      const sub = c.jumpTargets[i];
      if (sub === undefined)
        f = ALL; // a missing chain: the walk reports it
      else if (!seen.has(sub)) {
        seen.add(sub);
        todo.push(sub);
      }
    });
  }
  cache.set(chain, f);
  return f;
}
