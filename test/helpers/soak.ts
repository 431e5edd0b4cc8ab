/**
 * How many runs a property or a kernel check makes. A default `npm test` uses the quick count,
 * enough to exercise every branch in seconds; KUBE_NETSIM_SOAK=k (a positive integer) uses the
 * full count times k, for a soak before a release or after touching the code a test covers.
 */
const SOAK = process.env["KUBE_NETSIM_SOAK"];

function soakFactor(): number | undefined {
  if (SOAK === undefined || SOAK === "") return undefined;
  const k = Number(SOAK);
  if (!Number.isInteger(k) || k < 1)
    throw new Error(`KUBE_NETSIM_SOAK must be a positive integer, got ${JSON.stringify(SOAK)}`);
  return k;
}

export function soakRuns(quick: number, full: number): number {
  const k = soakFactor();
  return k === undefined ? quick : full * k;
}
