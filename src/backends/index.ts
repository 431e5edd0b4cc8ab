/** The backend API: one interface, the simulator and netns backends, scenarios and agreement. */
export * from "./backend.js";
export {
  agrees,
  compareObservation,
  describeObservation,
  describePrediction,
  type Agreement,
} from "./agree.js";
export { layoutOf, resolveSource, ScenarioError, type ScenarioLayout } from "./layout.js";
export { scenarioOfCluster, vethNameFor, type ScenarioOptions } from "./scenario-of-cluster.js";
export { autoProbes } from "./auto-probes.js";
export { verifyProbes, type VerifyResult, type VerifyRow, type VerifySummary } from "./verify.js";
export { simulatorBackend, type SimulatorBackend } from "./simulator/backend.js";
export {
  netnsBackend,
  detectCapabilities,
  NO_IPVS,
  NO_SCTP,
  NO_PYTHON,
  type IptablesVariant,
  type NetnsBackendOptions,
} from "./netns/backend.js";
