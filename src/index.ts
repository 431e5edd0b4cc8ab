/**
 * The kube-netsim library: the front door, grouped by task, one verb per stage (load, render,
 * parse/format, trace, evaluate). Explicit exports only: anything not named here is internal
 * (import it from its module inside this repository). The plugin-test kit is the subpath
 * `kube-netsim/testing`, the jest matchers `kube-netsim/jest`. Names follow
 * shared/docs/interfaces.md. One export statement per line (or small group) so features add a line.
 */

// ---- Load: Kubernetes manifests, the node, kube-proxy's settings ----
export { loadCluster, type LoadFilesOptions } from "./model/load-files.js";
export { parseCluster, type LoadOptions, type ValidationMode } from "./model/load.js";
export { makeCluster, type Cluster, type ClusterObjects } from "./model/cluster.js";
export { parseNodeEnvironment, nodeEnvironmentFromNode } from "./model/load-node-environment.js";
export { DEFAULT_KERNEL } from "./model/node-environment.js";
export type {
  NodeEnvironment,
  NodeInterface,
  KernelCapabilities,
} from "./model/node-environment.js";
export { parseProxyConfig } from "./model/load-proxy-config.js";
export { DEFAULT_PROXY_CONFIG } from "./model/proxy-config.js";
export type { KubeProxyConfiguration, ProxyMode } from "./model/proxy-config.js";
export { ValidationError, formatIssue } from "./model/issue.js";
export type { Issue, IssueCode, Severity, SourcePosition, ObjectRef } from "./model/issue.js";
export type {
  Namespace,
  Node,
  Pod,
  Service,
  Endpoints,
  EndpointSlice,
  NetworkPolicy,
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
} from "./model/kinds.js";

// ---- Addresses, CIDRs, protocols ----
export { parseIP, formatIP, ipFamilyOf, type IPAddress, type IPFamily } from "./net/address.js";
export { parseCIDR, formatCIDR, cidrContains, type CIDR } from "./net/cidr.js";
export { parseProtocol, type Protocol } from "./net/port.js";

// ---- Render: the rules kube-proxy and the kubelet write ----
export { renderIptables } from "./proxiers/iptables/render-iptables.js";
export type { IptablesRenderOptions } from "./proxiers/iptables/render.js";
export type { IptablesRender, IptablesFamilyRender } from "./proxiers/iptables/render-iptables.js";
export type { SpilledText } from "./netfilter/build/utf8-chunks.js";
export type { ProxierOptions } from "./proxiers/common/proxier-settings.js";
export { renderIpvs, IpvsUnavailableError, type IpvsRender } from "./proxiers/ipvs/render.js";
export { HostportManager, type HostportManagerOptions } from "./hostports/hostport-manager.js";
export { HostportError } from "./hostports/errors.js";
export type { PortMapping, PodPortMapping, HostSocket } from "./hostports/port-mapping.js";
export { hostportRulesForNode } from "./hostports/node-hostports.js";
export type { HostportNodeOptions, NodeHostports } from "./hostports/node-hostports.js";

// ---- Parse and format: iptables, ipset and ipvsadm text ----
export { parseIptablesSave, type ParseIptablesOptions } from "./netfilter/parse/iptables.js";
export { IptablesParseError } from "./netfilter/parse/errors.js";
export { formatIptablesSave, type FormatSaveOptions } from "./netfilter/format/save.js";
export { formatIptablesRestore } from "./netfilter/format/restore.js";
export type { RuleSet, Table, Chain, Rule, TableName, Hook } from "./netfilter/model.js";
export { parseIpsetSave } from "./netfilter/ipset/parse.js";
export { formatIpsetSave } from "./netfilter/ipset/format.js";
export type { Ipset, IpsetEntry, IpsetType } from "./netfilter/ipset/model.js";
export { parseIpvsadmSave, formatIpvsadmSave } from "./netfilter/ipvs/ipvsadm-save.js";
export { IpvsParseError } from "./netfilter/ipvs/parse-error.js";
export type { IpvsTable, IpvsService, VirtualServer, RealServer } from "./netfilter/ipvs/model.js";

// ---- Trace: a packet through a node's rules ----
export { trace, traceEstablished, type TraceOptions } from "./netfilter/trace/tracer.js";
export { traceUpstreamStyle } from "./netfilter/trace/upstream-style.js";
export type { UpstreamPacket, UpstreamTraceResult } from "./netfilter/trace/upstream-style.js";
export { buildDataplane, DataplaneError } from "./netfilter/trace/dataplane.js";
export type {
  NodeDataplane,
  NodeDataplaneInput,
  DataplaneInterface,
} from "./netfilter/trace/dataplane.js";
export { buildNodeDataplane, type NodeDataplaneOptions } from "./node/node-dataplane.js";
export { describeOutcome, describeStep } from "./netfilter/trace/explain.js";
export { TraceError } from "./netfilter/trace/walk.js";
export { TraceInputError } from "./netfilter/trace/packet-spec.js";
export type {
  PacketSpec,
  TraceProtocol,
  TraceResult,
  TraceOutcome,
  TraceVerdict,
  TraceStep,
  ConntrackEntry,
} from "./netfilter/trace/result.js";

// ---- Evaluate: NetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy ----
export { evaluatePolicy, type PolicyQuery, type PolicyVerdict } from "./policy/evaluate.js";
export { policyMatrix, computePolicyMatrix } from "./policy/matrix.js";
export type { MatrixOptions, MatrixRow, MatrixProbe, PolicyMatrix } from "./policy/matrix.js";
export { formatMatrixGrid } from "./policy/matrix-format.js";
export { formatExplanation } from "./policy/explanation-text.js";
export type { PolicyExplanation } from "./policy/explanation.js";
export { compilePolicies } from "./policy/compile.js";
export type { CompiledPolicies } from "./policy/compiled.js";
export type { PolicyOptions } from "./policy/options.js";
export { PolicyInputError, type EndpointSpec } from "./policy/endpoint.js";
export { policyDiff, type PolicyDiffRow } from "./policy/diff.js";
export { lintPolicies, type PolicyLintWarning } from "./policy/lint.js";

// ---- Features added by later changes: one line each below ----
export { convertToV1alpha2, type ConvertOptions, type ConvertResult } from "./policy/convert.js";
export { parseDnsMap, type DnsMap } from "./policy/dns-map.js";
export type { Verdict } from "./policy/verdict3.js";
export type { ClusterNetworkPolicy } from "./model/kinds.js";
export * from "./backends/index.js";
export {
  renderNftables,
  type NftablesResult,
  type NftablesOptions,
} from "./proxiers/nftables/index.js";
export {
  dumpTable as formatNftablesDump,
  listTable as formatNftablesList,
} from "./netfilter/nftables/index.js";
export { parseNftables, NftParseError, type NftRuleSet } from "./netfilter/nftables/parse/index.js";
export type { ServiceCIDR } from "./model/kinds.js";
export {
  syncSequence,
  type SyncState,
  type SyncSequenceOptions,
  type NftSync,
  type NftFamilySync,
} from "./proxiers/nftables/sync.js";
export type { NftOperation } from "./proxiers/nftables/sync-operations.js";
export { formatSyncSequence } from "./proxiers/nftables/sync-format.js";
export {
  syncIptablesSequence,
  type IptablesSync,
  type IptablesFamilySync,
  type IptablesSyncState,
  type IptablesSyncOptions,
  type IptablesCommand,
} from "./proxiers/iptables/sync.js";
export { formatIptablesSyncSequence } from "./proxiers/iptables/sync-format.js";
export { OperationalError, type OperationalCode } from "./issue/operational-error.js";
export type { IssueSource } from "./issue/issue.js";
