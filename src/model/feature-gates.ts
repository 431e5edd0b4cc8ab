/** Kubernetes feature gates as kube components spell them on the command line: `Key=bool,...`. */

import { LOCKED_FEATURE_GATE_TABLE } from "./locked-feature-gates.js";

export type FeatureGates = Readonly<Record<string, boolean>>;

/** Gates kube-netsim's validation consults, with the defaults of the Kubernetes version modelled. */
export const DEFAULT_FEATURE_GATES: FeatureGates = {
  /** GA since 1.20; off rejects SCTP like older API servers. */
  SCTPSupport: true,
  /**
   * KEP-4858: leading zeros, IPv4-mapped IPv6 and CIDR host bits are errors, not warnings.
   * Alpha and off by default in 1.33 and 1.34 (pkg/features/kube_features.go), so by default
   * they are warnings, as the API server of the modelled version returns them.
   */
  StrictIPCIDRValidation: false,
  /**
   * kube-netsim's own switch between the two ClusterNetworkPolicy CRD channels (network-policy-api
   * v0.2.0): true = experimental (adds `nodes`/`domainNames` egress peers and the named-port CEL
   * rule), false = standard. Default experimental, which accepts every feature upstream's
   * conformance suite tests.
   */
  ClusterNetworkPolicyExperimental: true,
};

/**
 * Gates that are locked to their default at the modelled version (`LockToDefault` in
 * pkg/features): setting one to the other value is refused, as component-base's featuregate
 * refuses it in kube-proxy and the API server. The table and its upstream source are in
 * locked-feature-gates.ts; `since` is the release that locked them.
 */
export const LOCKED_FEATURE_GATES = LOCKED_FEATURE_GATE_TABLE;

/** featuregate's refusal of a locked gate set to the other value, or undefined. */
export function lockedGateError(name: string, value: boolean): string | undefined {
  const locked = Object.prototype.hasOwnProperty.call(LOCKED_FEATURE_GATES, name)
    ? LOCKED_FEATURE_GATES[name]
    : undefined;
  if (locked === undefined || locked.value === value) return undefined;
  return `cannot set feature gate ${name} to ${value}, feature is locked to ${locked.value}`;
}

export function featureEnabled(gates: FeatureGates | undefined, name: string): boolean {
  return gates?.[name] ?? DEFAULT_FEATURE_GATES[name] ?? false;
}

/** The spellings Go's strconv.ParseBool accepts. */
const GO_BOOLS: Readonly<Record<string, boolean>> = {
  "1": true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  "0": false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false,
};

/** Parses `A=true,B=false`; returns an error message for the first bad entry. */
export function parseFeatureGates(text: string): { gates: FeatureGates } | { error: string } {
  const gates: Record<string, boolean> = {};
  for (const part of text.split(",")) {
    const entry = part.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    if (eq === -1) return { error: `missing bool value for ${entry}` };
    const key = entry.slice(0, eq).trim();
    const raw = entry.slice(eq + 1).trim();
    const value = Object.prototype.hasOwnProperty.call(GO_BOOLS, raw) ? GO_BOOLS[raw] : undefined;
    if (key === "") return { error: `missing feature name in "${entry}"` };
    if (value === undefined)
      return {
        error: `invalid value of ${key}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`,
      };
    const locked = lockedGateError(key, value);
    if (locked !== undefined) return { error: locked };
    gates[key] = value;
  }
  return { gates };
}
