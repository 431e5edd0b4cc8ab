import { describe, expect, test } from "@jest/globals";
import { featureEnabled, parseFeatureGates } from "../../src/model/feature-gates.js";

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
