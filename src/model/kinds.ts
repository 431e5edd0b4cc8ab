/**
 * The Kubernetes kinds kube-netsim reads. Core types come from kubernetes-types (1.30); fields
 * added upstream since then, and the policy.networking.k8s.io/v1alpha1 kinds, are declared here.
 */
import type {
  Namespace,
  Node,
  Pod,
  Service as ServiceV130,
  ServiceSpec as ServiceSpecV130,
  Endpoints,
} from "kubernetes-types/core/v1.js";
import type {
  EndpointSlice as EndpointSliceV130,
  Endpoint as EndpointV130,
  EndpointHints as EndpointHintsV130,
} from "kubernetes-types/discovery/v1.js";
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import type { LabelSelector, ObjectMeta } from "kubernetes-types/meta/v1.js";

export type { Namespace, Node, Pod, Endpoints, NetworkPolicy, LabelSelector, ObjectMeta };

/** Service with `spec.trafficDistribution` (1.31+); `ipMode` is already in 1.30's types. */
export interface ServiceSpec extends ServiceSpecV130 {
  trafficDistribution?: string;
}
export interface Service extends Omit<ServiceV130, "spec"> {
  spec?: ServiceSpec;
}

export interface ForNodeHint {
  name: string;
}
export interface EndpointHints extends EndpointHintsV130 {
  /** PreferSameNode (1.33+). */
  forNodes?: ForNodeHint[];
}
export interface Endpoint extends Omit<EndpointV130, "hints"> {
  hints?: EndpointHints;
}
export interface EndpointSlice extends Omit<EndpointSliceV130, "endpoints"> {
  endpoints: Endpoint[];
}

// ---- policy.networking.k8s.io/v1alpha1 (network-policy-api v0.1.7) ----

export type AdminNetworkPolicyRuleAction = "Allow" | "Deny" | "Pass";
export type BaselineAdminNetworkPolicyRuleAction = "Allow" | "Deny";

export interface NamespacedPod {
  namespaceSelector: LabelSelector;
  podSelector: LabelSelector;
}

export interface AdminNetworkPolicySubject {
  namespaces?: LabelSelector;
  pods?: NamespacedPod;
}

export interface AdminNetworkPolicyIngressPeer {
  namespaces?: LabelSelector;
  pods?: NamespacedPod;
}

export interface AdminNetworkPolicyEgressPeer {
  namespaces?: LabelSelector;
  pods?: NamespacedPod;
  nodes?: LabelSelector;
  networks?: string[];
  domainNames?: string[];
}

export interface PortNumber {
  protocol?: string;
  port: number;
}
export interface AdminNetworkPolicyPortRange {
  protocol?: string;
  start: number;
  end: number;
}
export interface AdminNetworkPolicyPort {
  portNumber?: PortNumber;
  namedPort?: string;
  portRange?: AdminNetworkPolicyPortRange;
}

export interface AdminNetworkPolicyIngressRule {
  name?: string;
  action: AdminNetworkPolicyRuleAction;
  from: AdminNetworkPolicyIngressPeer[];
  ports?: AdminNetworkPolicyPort[];
}
export interface AdminNetworkPolicyEgressRule {
  name?: string;
  action: AdminNetworkPolicyRuleAction;
  to: AdminNetworkPolicyEgressPeer[];
  ports?: AdminNetworkPolicyPort[];
}

export interface AdminNetworkPolicy {
  apiVersion?: string;
  kind?: "AdminNetworkPolicy";
  metadata?: ObjectMeta;
  spec: {
    priority: number;
    subject: AdminNetworkPolicySubject;
    ingress?: AdminNetworkPolicyIngressRule[];
    egress?: AdminNetworkPolicyEgressRule[];
  };
}

export interface BaselineAdminNetworkPolicyIngressRule {
  name?: string;
  action: BaselineAdminNetworkPolicyRuleAction;
  from: AdminNetworkPolicyIngressPeer[];
  ports?: AdminNetworkPolicyPort[];
}
export interface BaselineAdminNetworkPolicyEgressRule {
  name?: string;
  action: BaselineAdminNetworkPolicyRuleAction;
  to: AdminNetworkPolicyEgressPeer[];
  ports?: AdminNetworkPolicyPort[];
}
export interface BaselineAdminNetworkPolicy {
  apiVersion?: string;
  kind?: "BaselineAdminNetworkPolicy";
  metadata?: ObjectMeta;
  spec: {
    subject: AdminNetworkPolicySubject;
    ingress?: BaselineAdminNetworkPolicyIngressRule[];
    egress?: BaselineAdminNetworkPolicyEgressRule[];
  };
}

// ---- policy.networking.k8s.io/v1alpha2 (network-policy-api v0.2.0) ----

export type ClusterNetworkPolicyTier = "Admin" | "Baseline";
export type ClusterNetworkPolicyRuleAction = "Accept" | "Deny" | "Pass";

/** v1alpha2: `namespaceSelector` is optional (absent = all namespaces). */
export interface ClusterNetworkPolicyNamespacedPod {
  namespaceSelector?: LabelSelector;
  podSelector: LabelSelector;
}
export interface ClusterNetworkPolicySubject {
  namespaces?: LabelSelector;
  pods?: ClusterNetworkPolicyNamespacedPod;
}
export interface ClusterNetworkPolicyIngressPeer {
  namespaces?: LabelSelector;
  pods?: ClusterNetworkPolicyNamespacedPod;
}
export interface ClusterNetworkPolicyEgressPeer {
  namespaces?: LabelSelector;
  pods?: ClusterNetworkPolicyNamespacedPod;
  /** Experimental channel. */
  nodes?: LabelSelector;
  networks?: string[];
  /** Experimental channel. */
  domainNames?: string[];
}
export interface ClusterNetworkPolicyPortRange {
  start: number;
  end: number;
}
export interface ClusterNetworkPolicyPort {
  number?: number;
  range?: ClusterNetworkPolicyPortRange;
}
export interface ClusterNetworkPolicyProtocolPort {
  destinationPort?: ClusterNetworkPolicyPort;
}
export interface ClusterNetworkPolicyProtocol {
  tcp?: ClusterNetworkPolicyProtocolPort;
  udp?: ClusterNetworkPolicyProtocolPort;
  sctp?: ClusterNetworkPolicyProtocolPort;
  destinationNamedPort?: string;
}
export interface ClusterNetworkPolicyIngressRule {
  name?: string;
  action: ClusterNetworkPolicyRuleAction;
  from: ClusterNetworkPolicyIngressPeer[];
  protocols?: ClusterNetworkPolicyProtocol[];
}
export interface ClusterNetworkPolicyEgressRule {
  name?: string;
  action: ClusterNetworkPolicyRuleAction;
  to: ClusterNetworkPolicyEgressPeer[];
  protocols?: ClusterNetworkPolicyProtocol[];
}
export interface ClusterNetworkPolicy {
  apiVersion?: string;
  kind?: "ClusterNetworkPolicy";
  metadata?: ObjectMeta;
  spec: {
    tier: ClusterNetworkPolicyTier;
    priority: number;
    subject: ClusterNetworkPolicySubject;
    ingress?: ClusterNetworkPolicyIngressRule[];
    egress?: ClusterNetworkPolicyEgressRule[];
  };
}

export type KindName =
  | "Namespace"
  | "Node"
  | "Pod"
  | "Service"
  | "EndpointSlice"
  | "Endpoints"
  | "NetworkPolicy"
  | "AdminNetworkPolicy"
  | "BaselineAdminNetworkPolicy"
  | "ClusterNetworkPolicy"
  | "ServiceCIDR";

export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  "Namespace",
  "Node",
  "AdminNetworkPolicy",
  "BaselineAdminNetworkPolicy",
  "ClusterNetworkPolicy",
  "ServiceCIDR",
]);

/** networking.k8s.io/v1 ServiceCIDR (1.33 GA): the ranges cluster IPs are allocated from. */
export interface ServiceCIDR {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { cidrs?: string[] };
}
