/**
 * Which of a packet's per-branch fields a table walk can depend on. Statistic branches reach
 * FORWARD and POSTROUTING with different destinations (one per endpoint); when no rule
 * reachable from the hook's chain reads or writes the destination (kube-proxy's KUBE-FORWARD
 * and KUBE-POSTROUTING look only at marks and conntrack state), one walk serves them all.
 *
 * The footprint is a bit set over the fields that differ between branches (packet-fields.ts);
 * the other packet fields and the branch flags are always compared. A field is in the
 * footprint when a condition reads it or a target reads or writes it (a written field must be
 * equal for the exit to be reused as is): the extensions say which (`MatchExtension.reads`,
 * `TargetExtension.touches`). A match that consults state outside the packet (ipset, `recent`,
 * IPVS) counts as reading every field, so such walks are only reused for equal packets.
 */
import {
  ALL_FIELDS,
  CONNMARK,
  DPORT,
  DST,
  DST_ROUTE,
  IN_IFACE,
  MARK,
  OUT_IFACE,
  OUTSIDE,
  SPORT,
  SRC,
} from "../packet-fields.js";
import type { Rule } from "../model.js";
import { matchReads, targetTouches } from "../registry.js";
import type { CompiledChain } from "./chain-index.js";

export { CONNMARK, DPORT, DST, DST_ROUTE, IN_IFACE, MARK, OUT_IFACE, SPORT, SRC };
export const ALL = ALL_FIELDS;

function ruleFootprint(r: Rule): number {
  let f = 0;
  if (r.source !== undefined) f |= SRC;
  if (r.destination !== undefined) f |= DST;
  if (r.inInterface !== undefined) f |= IN_IFACE;
  if (r.outInterface !== undefined) f |= OUT_IFACE;
  for (const m of r.matches) {
    const reads = matchReads(m);
    f |= reads & OUTSIDE ? ALL : reads;
  }
  if (r.target !== undefined) f |= targetTouches(r.target);
  return f & (ALL | DST_ROUTE);
}

const cache = new WeakMap<CompiledChain, number>();

/**
 * The footprint of walking `chain` and every chain it can jump or go to. A destination read
 * through the node's answers only (DST_ROUTE) counts as DST: the table memos compare the
 * destination itself.
 */
export function footprint(chain: CompiledChain): number {
  const f = routedFootprint(chain);
  return f & DST_ROUTE ? (f | DST) & ALL : f;
}

/**
 * `footprint`, with DST only where a rule reads or writes the destination itself, and
 * DST_ROUTE where a target reads it through the node's answers only (MASQUERADE). Read from
 * the chains as written (`CompiledChain.written`): the chains it reaches need not be compiled
 * (KUBE-SERVICES reaches every Service's).
 */
export function routedFootprint(chain: CompiledChain): number {
  const hit = cache.get(chain);
  if (hit !== undefined) return hit;
  let f = 0;
  const seen = new Set<readonly Rule[]>([chain.rules]);
  const todo: (readonly Rule[])[] = [chain.rules];
  while (todo.length > 0 && (f & ALL) !== ALL) {
    for (const r of todo.pop()!) {
      f |= ruleFootprint(r);
      if (r.target?.kind !== "jump") continue;
      const sub = chain.written.get(r.target.chain);
      if (sub === undefined)
        f = ALL; // a missing chain: the walk reports it
      else if (!seen.has(sub.rules)) {
        seen.add(sub.rules);
        todo.push(sub.rules);
      }
    }
  }
  cache.set(chain, f);
  return f;
}
