/**
 * kube-proxy models for the library's public surface: the iptables proxier, and the shared
 * layer under names that do not clash with the Kubernetes kinds (`Endpoint` is discovery's).
 * The IPVS proxier adds its own line.
 */
export * from "./iptables/index.js";
export {
  renderIpvs,
  IpvsUnavailableError,
  IPVS_IPSETS,
  IPVS_JUMP_RULES,
  ipsetName as ipvsIpsetName,
  formatIpvsIpsets,
  renderIpvsIptables,
} from "./ipvs/index.js";
export type {
  IpvsRender,
  IpvsState,
  IpvsFamilyState,
  IpvsFamilySync,
  IpvsIpset,
  IpvsIpsetId,
  IpvsIpsetType,
  PlannedVirtualServer,
  VirtualServerSource,
} from "./ipvs/index.js";
export {
  chainHash,
  servicePortsForFamily,
  clusterIPForFamily,
  parseCIDRSloppy,
  DEFAULT_AFFINITY_TIMEOUT_SECONDS,
  endpointsByServicePort,
  servicePortKey,
  categorizeEndpoints,
  topologyModeFromHints,
  localDetectorFor,
  ifLocalArgs,
  ifNotLocalArgs,
  nodePortAddressesFor,
  expandNodePortAddresses,
  proxierSettings,
  planFamily,
  planServicePort,
  compareServicePorts,
  ZONE_LABEL,
} from "./common/index.js";
export type {
  Endpoint as ProxyEndpoint,
  ServicePort as ProxyServicePort,
  SessionAffinity,
  CategorizedEndpoints,
  TopologyMode,
  TopologyInput,
  LocalDetector,
  NodePortAddresses,
  ProxierSettings,
  ProxierOptions,
  ServicePortPlan,
  FamilyPlan,
  NoEndpointsVerdict,
} from "./common/index.js";
