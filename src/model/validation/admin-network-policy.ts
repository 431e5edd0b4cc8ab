/**
 * AdminNetworkPolicy and BaselineAdminNetworkPolicy (policy.networking.k8s.io/v1alpha1,
 * network-policy-api v0.1.7) are CRDs: the API server checks them with their OpenAPI schema
 * (required fields, enums, bounds, "exactly one of" via min/maxProperties) and CEL rules. Messages
 * follow the apiextensions phrasing (`in body should be ...`).
 */
import { parseCIDR } from "../../net/index.js";
import type {
  AdminNetworkPolicy,
  AdminNetworkPolicyEgressPeer,
  AdminNetworkPolicyIngressPeer,
  AdminNetworkPolicyPort,
  AdminNetworkPolicySubject,
  BaselineAdminNetworkPolicy,
} from "../kinds.js";
import { displayFieldPath } from "../issue.js";
import {
  invalid,
  required,
  tooMany,
  unsupported,
  type FieldIssue,
  type FieldPath,
} from "./field-issue.js";
import { validateLabelSelector, validateObjectMeta } from "./meta.js";
import { dns1123SubdomainProblems } from "./names.js";
import { checkProtocol, type ValidationContext } from "./context.js";

const MAX_RULES = 100;
const MAX_PEERS = 100;
const MAX_PORTS = 100;
const MAX_NETWORKS = 25;
const MAX_RULE_NAME = 100;

function below(path: FieldPath, v: number, min: number): FieldIssue {
  return invalid(
    path,
    v,
    `${displayFieldPath(path)} in body should be greater than or equal to ${min}`,
  );
}
function above(path: FieldPath, v: number, max: number): FieldIssue {
  return invalid(
    path,
    v,
    `${displayFieldPath(path)} in body should be less than or equal to ${max}`,
  );
}
export function range(
  path: FieldPath,
  v: number | undefined,
  lo: number,
  hi: number,
): FieldIssue[] {
  if (v === undefined) return [required(path)];
  if (v < lo) return [below(path, v, lo)];
  if (v > hi) return [above(path, v, hi)];
  return [];
}

/** min/maxProperties = 1: exactly one of the listed fields. */
export function exactlyOne(path: FieldPath, obj: object | undefined): FieldIssue[] {
  if (obj === undefined) return [required(path)];
  const n = Object.values(obj).filter((v) => v !== undefined).length;
  if (n === 0)
    return [
      invalid(path, 0, `${displayFieldPath(path)} in body should have at least 1 properties`),
    ];
  if (n > 1) return [tooMany(path, n, 1)];
  return [];
}

export function listBounds(
  path: FieldPath,
  list: readonly unknown[] | undefined,
  min: number,
  max: number,
): FieldIssue[] {
  const n = list?.length ?? 0;
  if (list === undefined && min > 0) return [required(path)];
  if (n < min)
    return [
      invalid(path, n, `${displayFieldPath(path)} in body should have at least ${min} items`),
    ];
  if (n > max) return [tooMany(path, n, max)];
  return [];
}

function validateSubject(s: AdminNetworkPolicySubject | undefined, p: FieldPath): FieldIssue[] {
  const out = exactlyOne(p, s);
  if (s?.namespaces !== undefined)
    out.push(...validateLabelSelector(s.namespaces, [...p, "namespaces"]));
  if (s?.pods !== undefined) {
    if (s.pods.namespaceSelector === undefined)
      out.push(required([...p, "pods", "namespaceSelector"]));
    if (s.pods.podSelector === undefined) out.push(required([...p, "pods", "podSelector"]));
    out.push(
      ...validateLabelSelector(s.pods.namespaceSelector, [...p, "pods", "namespaceSelector"]),
    );
    out.push(...validateLabelSelector(s.pods.podSelector, [...p, "pods", "podSelector"]));
  }
  return out;
}

function validatePeer(
  peer: AdminNetworkPolicyIngressPeer | AdminNetworkPolicyEgressPeer,
  p: FieldPath,
): FieldIssue[] {
  const out = validateSubject(peer, p);
  const eg = peer as AdminNetworkPolicyEgressPeer;
  if (eg.nodes !== undefined) out.push(...validateLabelSelector(eg.nodes, [...p, "nodes"]));
  if (eg.networks !== undefined) {
    out.push(...listBounds([...p, "networks"], eg.networks, 1, MAX_NETWORKS));
    eg.networks.forEach((n, i) => {
      if (parseCIDR(n, "strict") === undefined)
        out.push(invalid([...p, "networks", i], n, "Invalid CIDR format provided"));
    });
  }
  if (eg.domainNames !== undefined)
    out.push(...listBounds([...p, "domainNames"], eg.domainNames, 1, MAX_NETWORKS));
  return out;
}

function validatePorts(
  ctx: ValidationContext,
  ports: readonly AdminNetworkPolicyPort[] | undefined,
  p: FieldPath,
): FieldIssue[] {
  if (ports === undefined) return [];
  const out = listBounds(p, ports, 1, MAX_PORTS);
  ports.forEach((port, i) => {
    const pp = [...p, i];
    out.push(...exactlyOne(pp, port));
    if (port.portNumber !== undefined) {
      const n = port.portNumber;
      out.push(
        ...checkProtocol(ctx, [...pp, "portNumber", "protocol"], n.protocol ?? "TCP", "sorted"),
      );
      out.push(...range([...pp, "portNumber", "port"], n.port, 1, 65535));
    }
    if (port.portRange !== undefined) {
      const r = port.portRange;
      out.push(
        ...checkProtocol(ctx, [...pp, "portRange", "protocol"], r.protocol ?? "TCP", "sorted"),
      );
      out.push(...range([...pp, "portRange", "start"], r.start, 1, 65535));
      out.push(...range([...pp, "portRange", "end"], r.end, 1, 65535));
      if (r.start !== undefined && r.end !== undefined && !(r.start < r.end))
        out.push(
          invalid(
            [...pp, "portRange"],
            `${r.start}-${r.end}`,
            "Start port must be less than End port",
          ),
        );
    }
  });
  return out;
}

interface AnyRule {
  readonly name?: string;
  readonly action?: string;
  readonly from?: readonly AdminNetworkPolicyIngressPeer[];
  readonly to?: readonly AdminNetworkPolicyEgressPeer[];
  readonly ports?: readonly AdminNetworkPolicyPort[];
}

function validateRules(
  ctx: ValidationContext,
  rules: readonly AnyRule[] | undefined,
  dir: "ingress" | "egress",
  actions: readonly string[],
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const p = ["spec", dir];
  if ((rules?.length ?? 0) > MAX_RULES) out.push(tooMany(p, rules?.length ?? 0, MAX_RULES));
  (rules ?? []).forEach((rule, i) => {
    const rp = [...p, i];
    if (rule.name !== undefined && rule.name.length > MAX_RULE_NAME)
      out.push({
        code: "invalid",
        severity: "error",
        message: `Too long: may not be more than ${MAX_RULE_NAME} bytes`,
        path: [...rp, "name"],
      });
    if (rule.action === undefined) out.push(required([...rp, "action"]));
    else if (!actions.includes(rule.action))
      out.push(unsupported([...rp, "action"], rule.action, actions));
    const peersKey = dir === "ingress" ? "from" : "to";
    const peers = dir === "ingress" ? rule.from : rule.to;
    out.push(...listBounds([...rp, peersKey], peers, 1, MAX_PEERS));
    (peers ?? []).forEach((peer, j) => out.push(...validatePeer(peer, [...rp, peersKey, j])));
    out.push(...validatePorts(ctx, rule.ports, [...rp, "ports"]));
    const namedPort = (rule.ports ?? []).some((x) => x.namedPort !== undefined);
    const ipPeer = (rule.to ?? []).some(
      (x) => x.networks !== undefined || x.nodes !== undefined || x.domainNames !== undefined,
    );
    if (namedPort && ipPeer)
      out.push(
        invalid(
          [...rp],
          "namedPort",
          "networks/nodes/domainNames peer cannot be set with namedPorts since there are no namedPorts for networks/nodes/domainNames",
        ),
      );
    if (
      rule.action !== undefined &&
      rule.action !== "Allow" &&
      (rule.to ?? []).some((x) => x.domainNames !== undefined)
    )
      out.push(
        invalid([...rp], rule.action, "domainNames peer can only be used with Allow action"),
      );
  });
  return out;
}

export function validateAdminNetworkPolicy(
  ctx: ValidationContext,
  anp: AdminNetworkPolicy,
): FieldIssue[] {
  const out = validateObjectMeta(anp.metadata, false, dns1123SubdomainProblems);
  const spec = anp.spec as AdminNetworkPolicy["spec"] | undefined;
  if (spec === undefined) return [...out, required(["spec"])];
  out.push(...range(["spec", "priority"], spec.priority, 0, 1000));
  out.push(...validateSubject(spec.subject, ["spec", "subject"]));
  out.push(...validateRules(ctx, spec.ingress, "ingress", ["Allow", "Deny", "Pass"]));
  out.push(...validateRules(ctx, spec.egress, "egress", ["Allow", "Deny", "Pass"]));
  return out;
}

export function validateBaselineAdminNetworkPolicy(
  ctx: ValidationContext,
  banp: BaselineAdminNetworkPolicy,
): FieldIssue[] {
  const out = validateObjectMeta(banp.metadata, false, dns1123SubdomainProblems);
  const name = banp.metadata?.name ?? "";
  if (name !== "" && name !== "default")
    out.push(
      invalid(
        ["metadata", "name"],
        name,
        'Only one baseline admin network policy with metadata.name="default" can be created in the cluster',
      ),
    );
  const spec = banp.spec as BaselineAdminNetworkPolicy["spec"] | undefined;
  if (spec === undefined) return [...out, required(["spec"])];
  out.push(...validateSubject(spec.subject, ["spec", "subject"]));
  out.push(...validateRules(ctx, spec.ingress, "ingress", ["Allow", "Deny"]));
  out.push(...validateRules(ctx, spec.egress, "egress", ["Allow", "Deny"]));
  return out;
}
