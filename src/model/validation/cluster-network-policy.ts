/**
 * ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2, network-policy-api v0.2.0) is a CRD:
 * the API server checks it with the OpenAPI schema of the selected channel (required fields,
 * enums, bounds, "exactly one of" via min/maxProperties, list-type sets, patterns) and its CEL
 * rules (spec cluster-network-policy.md §2). There is no defaulting. Messages follow the
 * apiextensions phrasing used for ANP/BANP (`in body should ...`, CEL `Invalid value: "object"`).
 */
import { parseCIDR } from "../../net/cidr.js";
import { featureEnabled } from "../feature-gates.js";
import { formatFieldPath } from "../issue.js";
import type {
  ClusterNetworkPolicy,
  ClusterNetworkPolicyEgressPeer,
  ClusterNetworkPolicyIngressPeer,
  ClusterNetworkPolicyNamespacedPod,
  ClusterNetworkPolicyProtocol,
  ClusterNetworkPolicyProtocolPort,
  ClusterNetworkPolicySubject,
} from "../kinds.js";
import { exactlyOne, listBounds, range } from "./admin-network-policy.js";
import type { ValidationContext } from "./context.js";
import {
  duplicate,
  forbidden,
  invalid,
  required,
  tooMany,
  unsupported,
  type FieldIssue,
  type FieldPath,
} from "./field-issue.js";
import { validateLabelSelector, validateObjectMeta } from "./meta.js";
import { dns1123SubdomainProblems } from "./names.js";

/** `+kubebuilder:validation:MaxItems=25` on rules, peers, protocols, networks, domainNames. */
export const CNP_MAX_ITEMS = 25;
const MAX_RULE_NAME = 100;
const MAX_CIDR_LENGTH = 43;
/** The DomainName pattern, verbatim from the types (note the `A-z` ranges upstream wrote). */
export const DOMAIN_NAME_PATTERN =
  "^(\\*\\.)?([a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.)+[a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.?$";
const DOMAIN_NAME = new RegExp(DOMAIN_NAME_PATTERN);
export const CNP_EXPERIMENTAL_GATE = "ClusterNetworkPolicyExperimental";
const NAMED_PORT_CEL =
  "networks/nodes/domainNames peer cannot be set with namedPorts since there are no namedPorts for networks/nodes/domainNames";

function experimentalOnly(path: FieldPath, field: string): FieldIssue {
  return forbidden(
    path,
    `${field} exists only in the experimental channel of the ClusterNetworkPolicy CRD; the standard channel is selected (${CNP_EXPERIMENTAL_GATE}=false)`,
  );
}

function tooLong(path: FieldPath, max: number): FieldIssue {
  return {
    code: "too-many",
    severity: "error",
    message: `Too long: may not be more than ${max} bytes`,
    path,
  };
}

/** `+listType=set`: every duplicate after its first occurrence. */
function setDuplicates(path: FieldPath, list: readonly string[]): FieldIssue[] {
  const seen = new Set<string>();
  const out: FieldIssue[] = [];
  list.forEach((v, i) => {
    if (seen.has(v)) out.push(duplicate([...path, i], v));
    seen.add(v);
  });
  return out;
}

function validateNamespacedPod(pod: ClusterNetworkPolicyNamespacedPod, p: FieldPath): FieldIssue[] {
  const out: FieldIssue[] = [];
  if (pod.podSelector === undefined) out.push(required([...p, "podSelector"]));
  out.push(...validateLabelSelector(pod.namespaceSelector, [...p, "namespaceSelector"]));
  out.push(...validateLabelSelector(pod.podSelector, [...p, "podSelector"]));
  return out;
}

function validateSubject(s: ClusterNetworkPolicySubject | undefined, p: FieldPath): FieldIssue[] {
  const out = exactlyOne(p, s === undefined ? s : { namespaces: s.namespaces, pods: s.pods });
  if (s?.namespaces !== undefined)
    out.push(...validateLabelSelector(s.namespaces, [...p, "namespaces"]));
  if (s?.pods !== undefined) out.push(...validateNamespacedPod(s.pods, [...p, "pods"]));
  return out;
}

function validateCIDR(text: string, p: FieldPath): FieldIssue[] {
  if (text.length > MAX_CIDR_LENGTH) return [tooLong(p, MAX_CIDR_LENGTH)];
  // CEL isCIDR = netip.ParsePrefix: host bits allowed; leading zeros, zones, v4-mapped rejected.
  return parseCIDR(text, "strict") === undefined
    ? [invalid(p, text, "Invalid CIDR format provided")]
    : [];
}

/** The fields an ingress peer has in the schema (anything else is pruned by the API server). */
export function ingressPeerFields(
  p: ClusterNetworkPolicyIngressPeer,
): ClusterNetworkPolicyIngressPeer {
  return {
    ...(p.namespaces !== undefined ? { namespaces: p.namespaces } : {}),
    ...(p.pods !== undefined ? { pods: p.pods } : {}),
  };
}

function validatePeer(
  ctx: ValidationContext,
  peer: ClusterNetworkPolicyIngressPeer | ClusterNetworkPolicyEgressPeer,
  p: FieldPath,
  dir: "ingress" | "egress",
): FieldIssue[] {
  const experimental = featureEnabled(ctx.featureGates, CNP_EXPERIMENTAL_GATE);
  // The API server prunes fields the schema does not have (an ingress peer has only namespaces
  // and pods; the shape check warns about the rest), so only the schema's fields count here.
  const eg: ClusterNetworkPolicyEgressPeer = dir === "egress" ? peer : ingressPeerFields(peer);
  const out = exactlyOne(p, {
    namespaces: eg.namespaces,
    pods: eg.pods,
    nodes: eg.nodes,
    networks: eg.networks,
    domainNames: eg.domainNames,
  });
  if (eg.namespaces !== undefined)
    out.push(...validateLabelSelector(eg.namespaces, [...p, "namespaces"]));
  if (eg.pods !== undefined) out.push(...validateNamespacedPod(eg.pods, [...p, "pods"]));
  if (eg.nodes !== undefined) {
    if (!experimental) out.push(experimentalOnly([...p, "nodes"], "nodes"));
    out.push(...validateLabelSelector(eg.nodes, [...p, "nodes"]));
  }
  if (eg.networks !== undefined) {
    out.push(...listBounds([...p, "networks"], eg.networks, 1, CNP_MAX_ITEMS));
    out.push(...setDuplicates([...p, "networks"], eg.networks));
    eg.networks.forEach((n, i) => out.push(...validateCIDR(n, [...p, "networks", i])));
  }
  if (eg.domainNames !== undefined) {
    if (!experimental) out.push(experimentalOnly([...p, "domainNames"], "domainNames"));
    out.push(...listBounds([...p, "domainNames"], eg.domainNames, 1, CNP_MAX_ITEMS));
    out.push(...setDuplicates([...p, "domainNames"], eg.domainNames));
    eg.domainNames.forEach((d, i) => {
      if (!DOMAIN_NAME.test(d)) {
        const dp = [...p, "domainNames", i];
        out.push(
          invalid(dp, d, `${formatFieldPath(dp)} in body should match '${DOMAIN_NAME_PATTERN}'`),
        );
      }
    });
  }
  return out;
}

function validateProtocolPort(
  pp: ClusterNetworkPolicyProtocolPort | undefined,
  p: FieldPath,
): FieldIssue[] {
  // minProperties 1 on tcp/udp/sctp: `tcp: {}` is rejected (spec §2.5, open question O1).
  const out = exactlyOne(p, pp);
  const dp = pp?.destinationPort;
  if (dp === undefined) return out;
  const port = [...p, "destinationPort"];
  out.push(...exactlyOne(port, dp));
  if (dp.number !== undefined) out.push(...range([...port, "number"], dp.number, 1, 65535));
  if (dp.range !== undefined) {
    const r = dp.range;
    const rp = [...port, "range"];
    out.push(...range([...rp, "start"], r.start, 1, 65535));
    out.push(...range([...rp, "end"], r.end, 1, 65535));
    if (r.start !== undefined && r.end !== undefined && !(r.start < r.end))
      out.push(invalid(rp, "object", "Start port must be less than End port"));
  }
  return out;
}

function validateProtocols(
  list: readonly ClusterNetworkPolicyProtocol[] | undefined,
  p: FieldPath,
): FieldIssue[] {
  if (list === undefined) return [];
  const out = listBounds(p, list, 1, CNP_MAX_ITEMS);
  list.forEach((proto, i) => {
    const pp = [...p, i];
    out.push(...exactlyOne(pp, proto));
    for (const key of ["tcp", "udp", "sctp"] as const)
      if (proto[key] !== undefined) out.push(...validateProtocolPort(proto[key], [...pp, key]));
  });
  return out;
}

interface AnyRule {
  readonly name?: string;
  readonly action?: string;
  readonly from?: readonly ClusterNetworkPolicyIngressPeer[];
  readonly to?: readonly ClusterNetworkPolicyEgressPeer[];
  readonly protocols?: readonly ClusterNetworkPolicyProtocol[];
}

function validateRules(
  ctx: ValidationContext,
  rules: readonly AnyRule[] | undefined,
  dir: "ingress" | "egress",
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const p = ["spec", dir];
  if ((rules?.length ?? 0) > CNP_MAX_ITEMS) out.push(tooMany(p, rules?.length ?? 0, CNP_MAX_ITEMS));
  (rules ?? []).forEach((rule, i) => {
    const rp = [...p, i];
    if (rule.name !== undefined && rule.name.length > MAX_RULE_NAME)
      out.push(tooLong([...rp, "name"], MAX_RULE_NAME));
    if (rule.action === undefined) out.push(required([...rp, "action"]));
    else if (!["Accept", "Deny", "Pass"].includes(rule.action))
      out.push(unsupported([...rp, "action"], rule.action, ["Accept", "Deny", "Pass"]));
    const peersKey = dir === "ingress" ? "from" : "to";
    const peers = dir === "ingress" ? rule.from : rule.to;
    out.push(...listBounds([...rp, peersKey], peers, 1, CNP_MAX_ITEMS));
    (peers ?? []).forEach((peer, j) =>
      out.push(...validatePeer(ctx, peer, [...rp, peersKey, j], dir)),
    );
    out.push(...validateProtocols(rule.protocols, [...rp, "protocols"]));
    const named = (rule.protocols ?? []).some((x) => x.destinationNamedPort !== undefined);
    const ipPeer = (rule.to ?? []).some(
      (x) => x.networks !== undefined || x.nodes !== undefined || x.domainNames !== undefined,
    );
    if (named && ipPeer && featureEnabled(ctx.featureGates, CNP_EXPERIMENTAL_GATE))
      out.push(invalid(rp, "object", NAMED_PORT_CEL));
  });
  return out;
}

export function validateClusterNetworkPolicy(
  ctx: ValidationContext,
  cnp: ClusterNetworkPolicy,
): FieldIssue[] {
  const out = validateObjectMeta(cnp.metadata, false, dns1123SubdomainProblems);
  const spec = cnp.spec as ClusterNetworkPolicy["spec"] | undefined;
  if (spec === undefined) return [...out, required(["spec"])];
  if (spec.tier === undefined) out.push(required(["spec", "tier"]));
  else if (spec.tier !== "Admin" && spec.tier !== "Baseline")
    out.push(unsupported(["spec", "tier"], spec.tier, ["Admin", "Baseline"]));
  out.push(...range(["spec", "priority"], spec.priority, 0, 1000));
  out.push(...validateSubject(spec.subject, ["spec", "subject"]));
  out.push(...validateRules(ctx, spec.ingress, "ingress"));
  out.push(...validateRules(ctx, spec.egress, "egress"));
  return out;
}
