/**
 * The `recent` module's side effect: `--set` and `--update` put the packet's source (or, with
 * `--rdest`, destination) into a named list. The tracer keeps those updates per branch so the
 * "repeat within the timeout" scenario can start from exactly what the first packet left.
 */
import type { Packet, Rule } from "../model.js";
import type { RecentUpdate } from "./walk-state.js";

const NONE: readonly RecentUpdate[] = [];

export function recentUpdatesOf(rule: Rule, pkt: Packet): readonly RecentUpdate[] {
  let out: RecentUpdate[] | undefined;
  for (const m of rule.matches) {
    if (m.module !== "recent") continue;
    if (m.action !== "set" && m.action !== "update") continue;
    (out ??= []).push({ name: m.name, address: m.side === "dest" ? pkt.dst : pkt.src });
  }
  return out ?? NONE;
}
