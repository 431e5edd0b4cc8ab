/**
 * `describeNetworkPolicyConformance(adapter, options?)`: the NetworkPolicy properties as jest
 * tests at a fixed seed and number of runs (so a failure replays identically), using the
 * consumer's `describe`/`test` globals like describeSctpConformance.
 */
import fc from "fast-check";
import { policyVerdictsMatchReference } from "../properties/policyVerdictsMatchReference.js";
import { sctpPolicyNeverAdmitsTcpOrUdp } from "../properties/sctpPolicyNeverAdmitsTcpOrUdp.js";
import { noSctpSocketsOpened } from "../properties/noSctpSocketsOpened.js";
import type { ConformanceAdapter } from "./adapter.js";
import { expectProperty, jestGlobals } from "./describe-sctp.js";
import type { ConformanceOptions } from "./run-plan.js";

export interface PropertySuiteOptions extends ConformanceOptions {
  /** Default 20. */
  readonly numRuns?: number;
  /** Default 13 (the number): the same cases on every run. */
  readonly seed?: number;
}

export function describeNetworkPolicyConformance(
  adapter: ConformanceAdapter,
  options: PropertySuiteOptions = {},
): void {
  const g = jestGlobals();
  const { describe, test } = g;
  const params = { numRuns: options.numRuns ?? 20, seed: options.seed ?? 13 };
  const backend = options.backend !== undefined ? { backend: options.backend } : {};
  describe(`NetworkPolicy conformance: ${adapter.name}`, () => {
    test("a NetworkPolicy with only SCTP ports never admits TCP or UDP", () =>
      expectProperty(g, fc.assert(sctpPolicyNeverAdmitsTcpOrUdp(adapter, backend), params)));
    test("every probe's traced verdict equals evaluatePolicy's", () =>
      expectProperty(g, fc.assert(policyVerdictsMatchReference(adapter, backend), params)));
    test("node components open no SCTP sockets", () =>
      expectProperty(g, fc.assert(noSctpSocketsOpened(adapter), params)));
  });
}
