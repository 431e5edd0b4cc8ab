import { describe, expect, test } from "@jest/globals";
import {
  featureEnabled,
  LOCKED_FEATURE_GATES,
  lockedGateError,
  parseFeatureGates,
} from "../../src/model/feature-gates.js";
import { parseProxyConfig } from "../../src/model/load-proxy-config.js";
import { ValidationError, formatIssue } from "../../src/model/issue.js";

const PROXY_HEAD = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n";

function proxyConfigErrors(text: string): string[] {
  try {
    parseProxyConfig(text, "proxy.yaml");
  } catch (e) {
    if (e instanceof ValidationError) return e.issues.map(formatIssue);
    throw e;
  }
  return [];
}

describe("feature gates", () => {
  test("Key=bool,... as kube components read it", () => {
    expect(parseFeatureGates("SCTPSupport=false, StrictIPCIDRValidation=TRUE,")).toEqual({
      gates: { SCTPSupport: false, StrictIPCIDRValidation: true },
    });
    expect(parseFeatureGates("")).toEqual({ gates: {} });
  });

  test("bad entries", () => {
    expect(parseFeatureGates("SCTPSupport")).toEqual({
      error: "missing bool value for SCTPSupport",
    });
    expect(parseFeatureGates("=true")).toEqual({ error: 'missing feature name in "=true"' });
    expect(parseFeatureGates("A=yes")).toEqual({
      error: 'invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    });
  });

  test("defaults (1.34): SCTPSupport on, StrictIPCIDRValidation (alpha) off, unknown gates off", () => {
    expect(featureEnabled({}, "SCTPSupport")).toBe(true);
    expect(featureEnabled({}, "StrictIPCIDRValidation")).toBe(false);
    expect(featureEnabled({ SCTPSupport: false }, "SCTPSupport")).toBe(false);
    expect(featureEnabled(undefined, "Nope")).toBe(false);
  });
});

describe("locked feature gates (component-base featuregate)", () => {
  test("a gate locked at the modelled version refuses the other value, accepts its own", () => {
    expect(parseFeatureGates("LoadBalancerIPMode=false")).toEqual({
      error: "cannot set feature gate LoadBalancerIPMode to false, feature is locked to true",
    });
    expect(parseFeatureGates("LoadBalancerIPMode=true")).toEqual({
      gates: { LoadBalancerIPMode: true },
    });
  });

  test.each(Object.entries(LOCKED_FEATURE_GATES))("%s", (name, { value }) => {
    expect(lockedGateError(name, !value)).toBe(
      `cannot set feature gate ${name} to ${!value}, feature is locked to ${value}`,
    );
    expect(lockedGateError(name, value)).toBeUndefined();
  });

  test("strconv.ParseBool spellings, and no others", () => {
    expect(parseFeatureGates("A=1,B=F,C=True")).toEqual({ gates: { A: true, B: false, C: true } });
    expect(parseFeatureGates("A=tRuE")).toEqual({
      error: 'invalid value of A=tRuE, err: strconv.ParseBool: parsing "tRuE": invalid syntax',
    });
    expect(parseFeatureGates("A=constructor")).toHaveProperty("error");
  });
});

describe("every gate locked at the modelled version, not only the networking ones", () => {
  // Values from pkg/features/kube_features.go (stored 1.33 copy, see locked-feature-gates.ts).
  const cases: [string, boolean][] = [
    ["SidecarContainers", true],
    ["TopologyAwareHints", true],
    ["JobSuccessPolicy", true],
    ["StrictCostEnforcementForVAP", true],
    ["AllowServiceLBStatusOnNonLB", false],
    ["WatchFromStorageWithoutResourceVersion", false],
  ];

  test.each(cases)("--feature-gates %s refuses the other value", (name, value) => {
    expect(parseFeatureGates(`SCTPSupport=true,${name}=${String(!value)}`)).toEqual({
      error: `cannot set feature gate ${name} to ${String(!value)}, feature is locked to ${String(value)}`,
    });
    expect(parseFeatureGates(`${name}=${String(value)}`)).toEqual({ gates: { [name]: value } });
  });

  test.each(cases)(
    "KubeProxyConfiguration featureGates %s refuses the other value",
    (name, value) => {
      expect(
        proxyConfigErrors(`${PROXY_HEAD}featureGates:\n  ${name}: ${String(!value)}\n`),
      ).toEqual([
        `proxy.yaml:4:3: featureGates.${name}: cannot set feature gate ${name} to ${String(!value)}, feature is locked to ${String(value)}`,
      ]);
      expect(
        proxyConfigErrors(`${PROXY_HEAD}featureGates:\n  ${name}: ${String(value)}\n`),
      ).toEqual([]);
    },
  );

  test("a gate that is GA but not locked, or not a gate at all, stays settable", () => {
    expect(parseFeatureGates("TopologyManagerPolicyOptions=false,ExecProbeTimeout=false")).toEqual({
      gates: { TopologyManagerPolicyOptions: false, ExecProbeTimeout: false },
    });
  });
});
