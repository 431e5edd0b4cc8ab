/** Tiny builders for hand-written policy scenarios (objects as the API server stores them). */
import { makeCluster, type Cluster } from "../../src/model/cluster.js";
import type {
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
  Namespace,
  NetworkPolicy,
  Node,
  Pod,
} from "../../src/model/kinds.js";
import type { NetworkPolicySpec } from "kubernetes-types/networking/v1.js";
import { evaluatePolicy, type PolicyQuery } from "../../src/policy/evaluate.js";
import type { PolicyOptions } from "../../src/policy/options.js";

export function ns(name: string, labels: Record<string, string> = {}): Namespace {
  return { metadata: { name, labels } };
}

export interface PodOpts {
  labels?: Record<string, string>;
  ips?: string[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  hostNetwork?: boolean;
  nodeName?: string;
}

export function pod(id: string, o: PodOpts = {}): Pod {
  const [namespace = "", name = ""] = id.split("/");
  const ips = o.ips ?? [];
  return {
    metadata: { namespace, name, labels: o.labels ?? { pod: name } },
    spec: {
      ...(o.nodeName !== undefined ? { nodeName: o.nodeName } : {}),
      ...(o.hostNetwork === true ? { hostNetwork: true } : {}),
      containers: [
        { name: "c", ports: (o.ports ?? []).map((p) => ({ ...p, protocol: p.protocol ?? "TCP" })) },
      ],
    },
    ...(ips[0] !== undefined
      ? { status: { podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) } }
      : {}),
  };
}

export function np(id: string, spec: Partial<NetworkPolicySpec>): NetworkPolicy {
  const [namespace = "", name = ""] = id.split("/");
  return { metadata: { namespace, name }, spec: { podSelector: {}, ...spec } };
}

export function anp(name: string, spec: AdminNetworkPolicy["spec"]): AdminNetworkPolicy {
  return { metadata: { name }, spec };
}

export function banp(spec: BaselineAdminNetworkPolicy["spec"]): BaselineAdminNetworkPolicy {
  return { metadata: { name: "default" }, spec };
}

export function node(name: string, ip: string, labels: Record<string, string> = {}): Node {
  return {
    metadata: { name, labels },
    status: { addresses: [{ type: "InternalIP", address: ip }] },
  };
}

export function world(o: {
  namespaces?: Namespace[];
  pods: Pod[];
  policies?: NetworkPolicy[];
  anps?: AdminNetworkPolicy[];
  banps?: BaselineAdminNetworkPolicy[];
  nodes?: Node[];
}): Cluster {
  return makeCluster({
    namespaces: o.namespaces ?? [],
    pods: o.pods,
    networkPolicies: o.policies ?? [],
    adminNetworkPolicies: o.anps ?? [],
    baselineAdminNetworkPolicies: o.banps ?? [],
    nodes: o.nodes ?? [],
  });
}

export function allowed(
  c: Cluster,
  from: string,
  to: string,
  port = 80,
  protocol = "TCP",
  opts?: Partial<PolicyOptions>,
): boolean {
  const q: PolicyQuery = { from, to, port, protocol };
  return evaluatePolicy(c, q, opts).allowed;
}
