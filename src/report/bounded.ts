/**
 * What a report draws of a large cluster: every item when there are few, else the first `max`
 * (in the order the report lists them), or exactly the items the caller names. A picture per
 * Service, or a heat-map cell per pod pair, grows a page past what a browser opens comfortably
 * long before the cluster is large (docs/report.md, "Large clusters"); what is left out is said
 * on the page.
 */

export interface BoundOptions {
  /** Exactly these items (their keys), each of which must exist; else the first `max`. */
  readonly names?: readonly string[];
  /** At most this many (a positive integer, or Infinity for all). */
  readonly max: number;
}

export interface Bounded {
  /** The keys drawn, in the report's order for them. */
  readonly keys: readonly string[];
  /** Whether the bound (not naming) left items out. */
  readonly bounded: boolean;
}

/**
 * The keys of `all` (in the report's order) to draw. Throws a RangeError naming `what` for a
 * named key `all` lacks, or a bound that is not a positive integer or Infinity: the CLI checks
 * both first and reports them as usage errors.
 */
export function bounded(all: readonly string[], opts: BoundOptions, what: string): Bounded {
  if (opts.names !== undefined) {
    const missing = missingNames(all, opts.names);
    if (missing.length > 0) throw new RangeError(`no ${what} ${missing.join(", ")} in the cluster`);
    const named = new Set(opts.names);
    return { keys: [...named], bounded: false };
  }
  const { max } = opts;
  if (!(max === Infinity || (Number.isInteger(max) && max > 0)))
    throw new RangeError(
      `the bound on ${what}s must be a positive integer or Infinity, not ${max}`,
    );
  return { keys: all.slice(0, max), bounded: all.length > max };
}

/** The names in `names` that `all` lacks. */
export function missingNames(all: readonly string[], names: readonly string[]): string[] {
  const known = new Set(all);
  return names.filter((n) => !known.has(n));
}
