/**
 * `kube-netsim/testing`: the kit for plugin repositories. This file only re-exports, one line
 * (or one small group) per part. fast-check, a peer dependency, is needed by the arbitraries.
 */
export * from "./builders/index.js";
// fast-check arbitraries under the contract's `arb*` names (shared/docs/interfaces.md).
export { service as arbService, type ServiceConstraints } from "./arbitraries/service.js";
export { endpointSlice as arbEndpointSlice } from "./arbitraries/endpointSlice.js";
export { endpointSlices as arbEndpointSlices } from "./arbitraries/endpointSlice.js";
export { kubeCluster as arbKubeCluster, type GeneratedCluster } from "./arbitraries/kubeCluster.js";
export { hostPortPod as arbHostPortPod } from "./arbitraries/hostPortPod.js";
export { networkPolicy as arbNetworkPolicy } from "./arbitraries/networkPolicy.js";
export {
  adminNetworkPolicy as arbAdminNetworkPolicy,
  baselineAdminNetworkPolicy as arbBaselineAdminNetworkPolicy,
} from "./arbitraries/adminNetworkPolicy.js";
export { policyCluster as arbPolicyCluster } from "./arbitraries/policyCluster.js";
export { ipAddress as arbIpAddress } from "./arbitraries/ipAddress.js";
export { cidr as arbCidr } from "./arbitraries/cidr.js";
export { labels as arbLabels } from "./arbitraries/labels.js";
export { labelSelector as arbLabelSelector } from "./arbitraries/labelSelector.js";
// The conformance suites (the SCTP test plan) and the adapters for kube-netsim's own dataplanes.
export * from "./conformance/index.js";
// Reusable properties over a dataplane adapter, and the arbitrary they draw from.
export * from "./properties/index.js";
export {
  nodePolicyCase as arbNodePolicyCase,
  type NodePolicyCase,
} from "./arbitraries/nodePolicyCase.js";
export {
  nodeServiceCase as arbNodeServiceCase,
  type NodeServiceCase,
  type NodeServiceCaseOptions,
} from "./arbitraries/nodeServiceCase.js";
export {
  nodeHostPortCase as arbNodeHostPortCase,
  type NodeHostPortCase,
  type NodeHostPortCaseOptions,
} from "./arbitraries/nodeHostPortCase.js";
// Upstream kube-proxy's runPacketFlowTests rows as jest tests.
export {
  packetFlowTests,
  checkPacketFlow,
  PacketFlowFailure,
  type PacketFlowRow,
  type PacketFlowDataplane,
} from "./packet-flow-tests.js";
// Arbitraries for whole clusters and their parts (issue 13 §3).
export { namespace as arbNamespace, type NamespaceConstraints } from "./arbitraries/namespace.js";
export { pod as arbPod, type PodConstraints } from "./arbitraries/pod.js";
export {
  nodeEnvironment as arbNodeEnvironment,
  type NodeEnvironmentConstraints,
} from "./arbitraries/nodeEnvironment.js";
export { packet as arbPacket, type PacketConstraints } from "./arbitraries/packet.js";
export { probe as arbProbe } from "./arbitraries/probe.js";
export {
  cluster as arbCluster,
  clusterObjects as arbClusterObjects,
  type ClusterConstraints,
  type ClusterObjects,
} from "./arbitraries/cluster.js";
