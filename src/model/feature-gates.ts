/** Kubernetes feature gates as kube components spell them on the command line: `Key=bool,...`. */

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

export function featureEnabled(gates: FeatureGates | undefined, name: string): boolean {
  return gates?.[name] ?? DEFAULT_FEATURE_GATES[name] ?? false;
}

/** Parses `A=true,B=false`; returns an error message for the first bad entry. */
export function parseFeatureGates(text: string): { gates: FeatureGates } | { error: string } {
  const gates: Record<string, boolean> = {};
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    if (eq === -1) return { error: `missing bool value for ${entry}` };
    const key = entry.slice(0, eq).trim();
    const value = entry
      .slice(eq + 1)
      .trim()
      .toLowerCase();
    if (key === "") return { error: `missing feature name in "${entry}"` };
    if (value !== "true" && value !== "false")
      return {
        error: `invalid value of ${key}=${entry.slice(eq + 1).trim()}, err: strconv.ParseBool: parsing "${entry.slice(eq + 1).trim()}": invalid syntax`,
      };
    gates[key] = value === "true";
  }
  return { gates };
}
