/**
 * The `recent` module's side effect: `--set` and `--update` put the packet's source (or, with
 * `--rdest`, destination) into a named list (the match extension's `records`). The tracer
 * keeps those updates per branch so the "repeat within the timeout" scenario can start from
 * exactly what the first packet left.
 */
import type { Packet, Rule } from "../model.js";
import { matchRecords } from "../registry.js";
import type { RecentUpdate } from "./walk-state.js";

const NONE: readonly RecentUpdate[] = [];

/** Whether a matching `rule` puts an address into a list. */
export function ruleRecords(rule: Rule): boolean {
  return rule.matches.some((m) => matchRecords(m) !== undefined);
}

export function recentUpdatesOf(rule: Rule, pkt: Packet): readonly RecentUpdate[] {
  let out: RecentUpdate[] | undefined;
  for (const m of rule.matches) {
    const r = matchRecords(m);
    if (r === undefined) continue;
    (out ??= []).push({ name: r.list, address: r.address === "dest" ? pkt.dst : pkt.src });
  }
  return out ?? NONE;
}
