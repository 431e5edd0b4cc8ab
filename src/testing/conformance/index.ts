/** The conformance suites: adapters, the SCTP test plan, and their runners. */
export type {
  AdapterInput,
  ConformanceAdapter,
  ConformanceFeature,
  NodeSocket,
  NodeState,
} from "./adapter.js";
export { kubeProxyIptables, kubeProxyIpvs, kubenetHostports } from "./builtin-adapters.js";
export { describeSctpConformance, ConformanceFailure } from "./describe-sctp.js";
export {
  applicableTests,
  runPlanTest,
  runSctpPlan,
  type ConformanceOptions,
  type PlanResult,
} from "./run-plan.js";
export { SCTP_PLAN, type PlanTest } from "./sctp-plan.js";
export { sctpCluster, sctpNode } from "./fixture.js";
export {
  describeNetworkPolicyConformance,
  type PropertySuiteOptions,
} from "./describe-network-policy.js";
export { describeServiceConformance } from "./describe-service.js";
