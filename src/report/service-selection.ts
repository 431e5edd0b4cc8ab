/**
 * Which Services the report draws and traces. A chain graph costs ~10 ms of layout and ~20 KB
 * of page, a Service's traces about as much again: a cluster of 1,000 Services made a 21 MB page
 * in 22 s, one of 10,000 a 216 MB page in 280 s and 2.4 GB. So a report shows at most
 * `maxServices` of them (DEFAULT_MAX_SERVICES; the first by namespace/name, the order the chain
 * graphs are listed in), says so on the page, and lets the caller name the ones it wants
 * instead (bounded.ts). The node summary still counts every Service.
 */
import type { Cluster } from "../model/cluster.js";
import type { Service } from "../model/kinds.js";
import { bounded, missingNames } from "./bounded.js";

/** Services drawn and traced when the caller names none and sets no other bound. */
export const DEFAULT_MAX_SERVICES = 50;

export interface ServiceSelectionOptions {
  /**
   * Only these Services (`namespace/name`), each of which must be in the cluster: traced in this
   * order; their chain graphs are listed by name, as always.
   */
  readonly services?: readonly string[];
  /** At most this many (the first by namespace/name); `Infinity` for all. Default 50. */
  readonly maxServices?: number;
}

export interface ServiceSelection {
  /** The Services to draw and trace. */
  readonly services: readonly Service[];
  /** Their `namespace/name` keys. */
  readonly keys: ReadonlySet<string>;
  /** How many Services the cluster has. */
  readonly total: number;
  /** Whether Services were left out by the bound (not by naming). */
  readonly bounded: boolean;
}

function serviceKey(s: Service): string {
  return `${s.metadata?.namespace ?? "default"}/${s.metadata?.name ?? ""}`;
}

/** The names in `names` that are not a Service of the cluster. */
export function unknownServices(cluster: Cluster, names: readonly string[]): string[] {
  return missingNames(cluster.services.map(serviceKey), names);
}

/** The Services a report covers (a RangeError as bounded.ts says). */
export function selectServices(cluster: Cluster, opts: ServiceSelectionOptions): ServiceSelection {
  const byKey = new Map(cluster.services.map((s) => [serviceKey(s), s]));
  const sorted = [...byKey.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const chosen = bounded(
    sorted,
    {
      ...(opts.services !== undefined ? { names: opts.services } : {}),
      max: opts.maxServices ?? DEFAULT_MAX_SERVICES,
    },
    "Service",
  );
  return {
    services: chosen.keys.map((k) => byKey.get(k)!),
    keys: new Set(chosen.keys),
    total: cluster.services.length,
    bounded: chosen.bounded,
  };
}
