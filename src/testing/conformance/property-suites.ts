/**
 * The service and NetworkPolicy suites as data, outside any test framework: each test is one
 * property of section 4 at a fixed seed and number of runs, defined only when the adapter
 * claims the feature it needs (as for the SCTP plan). describeServiceConformance and
 * describeNetworkPolicyConformance turn them into jest tests; the `conformance` command runs
 * them and reports the failures.
 */
import fc from "fast-check";
import type { IPFamily } from "../../net/index.js";
import { hostPortsReachPods } from "../properties/hostPortsReachPods.js";
import { nodePortsReachable } from "../properties/nodePortsReachable.js";
import { noEndpointServicesReject } from "../properties/noEndpointServicesReject.js";
import { noSctpSocketsOpened } from "../properties/noSctpSocketsOpened.js";
import { policyVerdictsMatchReference } from "../properties/policyVerdictsMatchReference.js";
import { sctpPolicyNeverAdmitsTcpOrUdp } from "../properties/sctpPolicyNeverAdmitsTcpOrUdp.js";
import { servicesReachOnlyReadyEndpoints } from "../properties/servicesReachOnlyReadyEndpoints.js";
import type { ConformanceAdapter, ConformanceFeature } from "./adapter.js";
import type { ConformanceOptions } from "./run-plan.js";

export interface PropertySuiteOptions extends ConformanceOptions {
  /** Default 20. */
  readonly numRuns?: number;
  /** Default 13 (the number): the same cases on every run. */
  readonly seed?: number;
  /**
   * The cluster's and node's IP families for the Service suite, hostPorts included (default
   * `["IPv4"]`; `["IPv4", "IPv6"]`: dual-stack, each case probing one family). The NetworkPolicy
   * properties stay IPv4.
   */
  readonly families?: readonly IPFamily[];
}

/** One property of a suite: `assert` resolves when it holds and rejects with fast-check's report. */
export interface PropertyTest {
  readonly name: string;
  /** The dataplane feature it needs; undefined: every dataplane. */
  readonly feature?: ConformanceFeature;
  assert(adapter: ConformanceAdapter, options: PropertySuiteOptions): Promise<void>;
}

const params = (o: PropertySuiteOptions): fc.Parameters<unknown> => ({
  numRuns: o.numRuns ?? 20,
  seed: o.seed ?? 13,
});
const backendOf = (o: PropertySuiteOptions) =>
  o.backend !== undefined ? { backend: o.backend } : {};
/** What the Service suite's properties take: the backend and the families. */
const serviceOptions = (o: PropertySuiteOptions) => ({
  ...backendOf(o),
  ...(o.families !== undefined ? { families: o.families } : {}),
});

export const SERVICE_SUITE: readonly PropertyTest[] = [
  {
    name: "a Service port with ready endpoints reaches only them",
    feature: "services",
    assert: (a, o) => fc.assert(servicesReachOnlyReadyEndpoints(a, serviceOptions(o)), params(o)),
  },
  {
    name: "a NodePort reaches the Service's ready endpoints from outside",
    feature: "services",
    assert: (a, o) => fc.assert(nodePortsReachable(a, serviceOptions(o)), params(o)),
  },
  {
    name: "a Service port without ready endpoints rejects",
    feature: "services",
    assert: (a, o) => fc.assert(noEndpointServicesReject(a, serviceOptions(o)), params(o)),
  },
  {
    name: "a hostPort reaches its pod from outside",
    feature: "hostPorts",
    assert: (a, o) => fc.assert(hostPortsReachPods(a, serviceOptions(o)), params(o)),
  },
];

export const NETWORK_POLICY_SUITE: readonly PropertyTest[] = [
  {
    name: "a NetworkPolicy with only SCTP ports never admits TCP or UDP",
    feature: "networkPolicy",
    assert: (a, o) => fc.assert(sctpPolicyNeverAdmitsTcpOrUdp(a, backendOf(o)), params(o)),
  },
  {
    name: "every probe's traced verdict equals evaluatePolicy's",
    feature: "networkPolicy",
    assert: (a, o) => fc.assert(policyVerdictsMatchReference(a, backendOf(o)), params(o)),
  },
  {
    name: "node components open no SCTP sockets",
    assert: (a, o) => fc.assert(noSctpSocketsOpened(a), params(o)),
  },
];

/** The suite's tests this adapter's features make applicable. */
export function applicableProperties(
  suite: readonly PropertyTest[],
  adapter: ConformanceAdapter,
): PropertyTest[] {
  return suite.filter((t) => t.feature === undefined || adapter.features.includes(t.feature));
}

/** Runs one property; the failure messages (fast-check's report: counterexample, seed, cause). */
export async function runProperty(
  test: PropertyTest,
  adapter: ConformanceAdapter,
  options: PropertySuiteOptions = {},
): Promise<string[]> {
  try {
    await test.assert(adapter, options);
    return [];
  } catch (e) {
    if (!(e instanceof Error)) return [String(e)];
    const cause = e.cause instanceof Error ? `\n${e.cause.message}` : "";
    return [`${e.message}${cause}`];
  }
}
