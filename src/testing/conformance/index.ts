/** The conformance suites: adapters, the SCTP test plan, and their runners. */
export type {
  AdapterInput,
  ConformanceAdapter,
  ConformanceFeature,
  NodeSocket,
  NodeState,
} from "./adapter.js";
export { kubeProxyIptables, kubeProxyIpvs, kubenetHostports } from "./builtin-adapters.js";
export { kubeProxyNftables } from "./builtin-adapters.js";
export { describeSctpConformance, ConformanceFailure } from "./describe-sctp.js";
export {
  applicableTests,
  runPlanTest,
  runSctpPlan,
  type ConformanceOptions,
  type KernelWatch,
  type PlanResult,
} from "./run-plan.js";
export type { ModuleState } from "../../backends/linux/kernel-module.js";
export { SCTP_PLAN, type PlanTest } from "./sctp-plan.js";
export { propertyNode, sctpCluster, sctpNode } from "./fixture.js";
export {
  describeNetworkPolicyConformance,
  type PropertySuiteOptions,
} from "./describe-network-policy.js";
export { describeServiceConformance } from "./describe-service.js";
export {
  applicableProperties,
  runProperty,
  NETWORK_POLICY_SUITE,
  SERVICE_SUITE,
  type PropertyTest,
} from "./property-suites.js";
export {
  runConformanceSuites,
  SUITE_NAMES,
  SUITE_TITLES,
  type RunSuitesOptions,
  type SuiteName,
  type SuiteResult,
} from "./run-suites.js";
