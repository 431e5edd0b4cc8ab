/** Reusable properties over a dataplane adapter (issue 13 §4), one per file. */
export { sctpPolicyNeverAdmitsTcpOrUdp } from "./sctpPolicyNeverAdmitsTcpOrUdp.js";
export { policyVerdictsMatchReference } from "./policyVerdictsMatchReference.js";
export { noSctpSocketsOpened } from "./noSctpSocketsOpened.js";
export type { PropertyOptions } from "./trace-probe.js";
export { servicesReachOnlyReadyEndpoints } from "./servicesReachOnlyReadyEndpoints.js";
export { noEndpointServicesReject } from "./noEndpointServicesReject.js";
export { nodePortsReachable } from "./nodePortsReachable.js";
export { hostPortsReachPods } from "./hostPortsReachPods.js";
