/**
 * Service validation: ValidateService, validateServicePort, ValidateServiceClusterIPsRelatedFields
 * and the traffic-policy checks of pkg/apis/core/validation, plus the registry's IP-family rule
 * (a SingleStack service cannot have two families). Checks that need the cluster's allocators
 * (node port range, service CIDRs) are left out: there is no cluster here.
 */
import { parseIP } from "../../net/index.js";
import type { Service, ServicePort } from "kubernetes-types/core/v1.js";
import {
  duplicate,
  forbidden,
  invalid,
  required,
  unsupported,
  type FieldIssue,
  type FieldPath,
} from "./field-issue.js";
import { checkCIDR, checkIP, nonSpecialIPProblems } from "./ip-fields.js";
import { validateLabels, validateLabelName, validateObjectMeta } from "./meta.js";
import { labelKeyProblems } from "./names.js";
import {
  dns1035LabelProblems,
  dns1123LabelProblems,
  dns1123SubdomainProblems,
  inclusiveRangeError,
} from "./names.js";
import { checkProtocol, strictIPs, type ValidationContext } from "./context.js";
import { portNameProblems } from "../../net/index.js";
import type { Service as ModelService } from "../kinds.js";

const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const AFFINITIES = ["ClientIP", "None"];
const FAMILIES = ["IPv4", "IPv6"];
const FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];
const TRAFFIC_POLICIES = ["Cluster", "Local"];
const TRAFFIC_DISTRIBUTIONS = ["PreferClose", "PreferSameZone", "PreferSameNode"];
const MAX_CLIENT_IP_TIMEOUT = 86400;

/** core.DeprecatedAnnotationTopologyAwareHints and core.AnnotationTopologyMode. */
export const TOPOLOGY_AWARE_HINTS_ANNOTATION = "service.kubernetes.io/topology-aware-hints";
export const TOPOLOGY_MODE_ANNOTATION = "service.kubernetes.io/topology-mode";
/** core.AnnotationLoadBalancerSourceRangesKey. */
export const LB_SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges";
const LB_ONLY = "may only be used when `type` is 'LoadBalancer'";

/** Both topology annotations set: they must agree (ValidateService). */
function validateTopologyAnnotations(svc: Service): FieldIssue[] {
  const a = svc.metadata?.annotations ?? {};
  const hints = a[TOPOLOGY_AWARE_HINTS_ANNOTATION];
  const mode = a[TOPOLOGY_MODE_ANNOTATION];
  if (hints === undefined || mode === undefined || hints === mode) return [];
  return [
    invalid(
      ["metadata", "annotations", TOPOLOGY_MODE_ANNOTATION],
      mode,
      `must match annotations[${TOPOLOGY_AWARE_HINTS_ANNOTATION}] when both are specified`,
    ),
  ];
}

/**
 * Source ranges from the field, or else from the annotation (a comma-separated list, checked
 * entry by entry at the annotation's path); either only on a LoadBalancer.
 */
function validateSourceRanges(ctx: ValidationContext, svc: Service, type: string): FieldIssue[] {
  const out: FieldIssue[] = [];
  const ranges = svc.spec?.loadBalancerSourceRanges ?? [];
  const annotation = svc.metadata?.annotations?.[LB_SOURCE_RANGES_ANNOTATION];
  if (ranges.length > 0) {
    // Upstream reports this field with a capitalised path.
    const rp = ["spec", "LoadBalancerSourceRanges"];
    if (type !== "LoadBalancer") out.push(forbidden(rp, LB_ONLY));
    ranges.forEach((r, i) => out.push(...checkCIDR([...rp, i], r.trim(), strictIPs(ctx)).issues));
  } else if (annotation !== undefined) {
    const ap = ["metadata", "annotations", LB_SOURCE_RANGES_ANNOTATION];
    if (type !== "LoadBalancer") out.push(forbidden(ap, LB_ONLY));
    const value = annotation.trim();
    if (value !== "")
      for (const r of value.split(",")) out.push(...checkCIDR(ap, r.trim(), strictIPs(ctx)).issues);
  }
  return out;
}

/** `validateLoadBalancerClassField` on create: a qualified name, and only on a LoadBalancer. */
function validateLoadBalancerClass(svc: Service, type: string): FieldIssue[] {
  const cls = svc.spec?.loadBalancerClass;
  if (cls === undefined) return [];
  const path = ["spec", "loadBalancerClass"];
  if (type !== "LoadBalancer") return [forbidden(path, LB_ONLY)];
  return labelKeyProblems(cls).map((m) => invalid(path, cls, m));
}

/** `ValidateLoadBalancerStatus` for one ingress entry's hostname. */
function validateIngressHostname(hostname: string, path: FieldPath): FieldIssue[] {
  const out = dns1123SubdomainProblems(hostname).map((m) => invalid(path, hostname, m));
  if (parseIP(hostname, "lenient") !== undefined)
    out.push(invalid(path, hostname, "must be a DNS name, not an IP address"));
  return out;
}

function portNumProblems(n: number): string[] {
  return n >= 1 && n <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** `ValidatePortNumOrName`. */
export function validatePortNumOrName(
  v: number | string | undefined,
  path: FieldPath,
): FieldIssue[] {
  if (typeof v === "string") return portNameProblems(v).map((m) => invalid(path, v, m));
  const n = v ?? 0;
  return portNumProblems(n).map((m) => invalid(path, n, m));
}

function validateServicePort(
  ctx: ValidationContext,
  sp: ServicePort,
  requireName: boolean,
  names: Set<string>,
  path: FieldPath,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const name = sp.name ?? "";
  if (requireName && name === "") out.push(required([...path, "name"]));
  else if (name !== "") {
    for (const m of dns1123LabelProblems(name)) out.push(invalid([...path, "name"], name, m));
    if (names.has(name)) out.push(duplicate([...path, "name"], name));
    else names.add(name);
  }
  for (const m of portNumProblems(sp.port ?? 0))
    out.push(invalid([...path, "port"], sp.port ?? 0, m));
  const protocol = sp.protocol ?? "";
  if (protocol === "") out.push(required([...path, "protocol"]));
  else out.push(...checkProtocol(ctx, [...path, "protocol"], protocol, "sorted"));
  out.push(...validatePortNumOrName(sp.targetPort, [...path, "targetPort"]));
  if (sp.appProtocol !== undefined)
    out.push(...validateLabelName(sp.appProtocol, [...path, "appProtocol"]));
  if (sp.nodePort !== undefined && sp.nodePort !== 0)
    for (const m of portNumProblems(sp.nodePort))
      out.push(invalid([...path, "nodePort"], sp.nodePort, m));
  return out;
}

function externallyAccessible(svc: Service): boolean {
  const t = svc.spec?.type;
  return (
    t === "LoadBalancer" ||
    t === "NodePort" ||
    (t === "ClusterIP" && (svc.spec?.externalIPs?.length ?? 0) > 0)
  );
}

function validateClusterIPs(ctx: ValidationContext, svc: Service): FieldIssue[] {
  const spec = svc.spec ?? {};
  if (spec.type === "ExternalName") return [];
  const out: FieldIssue[] = [];
  const clusterIP = spec.clusterIP ?? "";
  const clusterIPs = spec.clusterIPs ?? [];
  const ipsPath = ["spec", "clusterIPs"];
  if (clusterIP !== "") {
    if (clusterIPs.length === 0) out.push(required(ipsPath));
    else if (clusterIPs[0] !== clusterIP)
      out.push(invalid(ipsPath, clusterIPs, "first value must match `clusterIP`"));
  } else if (clusterIPs.length !== 0) {
    out.push(invalid(ipsPath, clusterIPs, "must be empty when `clusterIP` is not specified"));
  }
  const families = spec.ipFamilies ?? [];
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (!FAMILIES.includes(f)) out.push(unsupported(["spec", "ipFamilies", i], f, FAMILIES));
    if (seen.has(f)) out.push(duplicate(["spec", "ipFamilies", i], f));
    seen.add(f);
  });
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && !FAMILY_POLICIES.includes(policy))
    out.push(unsupported(["spec", "ipFamilyPolicy"], policy, FAMILY_POLICIES));
  let hasInvalid = false;
  const parsedFamilies: string[] = [];
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (clusterIPs.length > 1) {
        hasInvalid = true;
        out.push(invalid(ipsPath, clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    const r = checkIP([...ipsPath, i], ip, strictIPs(ctx));
    if (r.issues.some((x) => x.severity === "error")) hasInvalid = true;
    out.push(...r.issues);
    if (r.ip !== undefined) parsedFamilies.push(r.ip.family);
  });
  if (clusterIPs.length > 2) out.push(invalid(ipsPath, clusterIPs, "may only hold up to 2 values"));
  if (hasInvalid) return out;
  if (
    clusterIPs.length > 1 &&
    !(parsedFamilies.length === 2 && parsedFamilies[0] !== parsedFamilies[1])
  )
    out.push(invalid(ipsPath, clusterIPs, "may specify no more than one IP for each IP family"));
  const headless = clusterIPs[0] === "None";
  if (!headless)
    clusterIPs.forEach((ip, i) => {
      const fam = families[i];
      if (fam === undefined) return;
      const ipFam = parseIP(ip, "lenient")?.family;
      if (fam === "IPv4" && ipFam === "IPv6")
        out.push(
          invalid(
            [...ipsPath, i],
            ip,
            `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
      if (fam === "IPv6" && ipFam !== "IPv6")
        out.push(
          invalid(
            [...ipsPath, i],
            ip,
            `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
    });
  if (policy === "SingleStack" && (clusterIPs.length === 2 || families.length === 2))
    out.push(
      invalid(
        ["spec", "ipFamilyPolicy"],
        policy,
        "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
      ),
    );
  return out;
}

export function validateService(ctx: ValidationContext, svc: ModelService): FieldIssue[] {
  const s = svc;
  const spec = s.spec ?? {};
  const out = validateObjectMeta(s.metadata, true, dns1035LabelProblems);
  out.push(...validateTopologyAnnotations(s));
  const ports = spec.ports ?? [];
  const headless = (spec.clusterIPs ?? [])[0] === "None" || spec.clusterIP === "None";
  const type = spec.type ?? "";
  if (ports.length === 0 && !headless && type !== "ExternalName")
    out.push(required(["spec", "ports"]));
  if ((type === "LoadBalancer" || type === "NodePort") && headless)
    out.push(
      invalid(["spec", "clusterIPs", 0], "None", `may not be set to 'None' for ${type} services`),
    );
  if (type === "ExternalName") {
    if ((spec.clusterIPs ?? []).length > 0 || (spec.clusterIP ?? "") !== "")
      out.push(forbidden(["spec", "clusterIPs"], "may not be set for ExternalName services"));
    if ((spec.ipFamilies ?? []).length > 0)
      out.push(forbidden(["spec", "ipFamilies"], "may not be set for ExternalName services"));
    if (spec.ipFamilyPolicy !== undefined)
      out.push(forbidden(["spec", "ipFamilyPolicy"], "may not be set for ExternalName services"));
    const cname = (spec.externalName ?? "").replace(/\.$/, "");
    if (cname === "") out.push(required(["spec", "externalName"]));
    else
      for (const m of dns1123SubdomainProblems(cname))
        out.push(invalid(["spec", "externalName"], cname, m));
  }
  const names = new Set<string>();
  ports.forEach((p, i) =>
    out.push(...validateServicePort(ctx, p, ports.length > 1, names, ["spec", "ports", i])),
  );
  if (spec.selector !== undefined) out.push(...validateLabels(spec.selector, ["spec", "selector"]));

  const affinity = spec.sessionAffinity ?? "";
  if (affinity === "") out.push(required(["spec", "sessionAffinity"]));
  else if (!AFFINITIES.includes(affinity))
    out.push(unsupported(["spec", "sessionAffinity"], affinity, AFFINITIES));
  if (affinity === "ClientIP") {
    const cfgPath = ["spec", "sessionAffinityConfig"];
    const cfg = spec.sessionAffinityConfig;
    if (cfg === undefined) out.push(required(cfgPath, "when session affinity type is ClientIP"));
    else if (cfg.clientIP === undefined)
      out.push(required([...cfgPath, "clientIP"], "when session affinity type is ClientIP"));
    else {
      const t = cfg.clientIP.timeoutSeconds ?? 0;
      if (t <= 0 || t > MAX_CLIENT_IP_TIMEOUT)
        out.push(
          invalid(
            [...cfgPath, "clientIP", "timeoutSeconds"],
            t,
            `must be greater than 0 and less than ${MAX_CLIENT_IP_TIMEOUT}`,
          ),
        );
    }
  } else if (affinity === "None" && spec.sessionAffinityConfig !== undefined) {
    out.push(
      forbidden(["spec", "sessionAffinityConfig"], "must not be set when session affinity is None"),
    );
  }

  out.push(...validateClusterIPs(ctx, s));

  // A valid external IP must also not be special ("for historical reasons" the API server
  // applies ValidateEndpointIP here).
  (spec.externalIPs ?? []).forEach((ip, i) => {
    const path = ["spec", "externalIPs", i];
    const r = checkIP(path, ip, strictIPs(ctx));
    out.push(...r.issues);
    if (r.ip !== undefined && !r.issues.some((x) => x.severity === "error"))
      for (const m of nonSpecialIPProblems(r.ip, ip)) out.push(invalid(path, ip, m));
  });

  if (type === "") out.push(required(["spec", "type"]));
  else if (!SERVICE_TYPES.includes(type))
    out.push(unsupported(["spec", "type"], type, SERVICE_TYPES));

  if (type === "ClusterIP")
    ports.forEach((p, i) => {
      if ((p.nodePort ?? 0) !== 0)
        out.push(
          forbidden(["spec", "ports", i, "nodePort"], "may not be used when `type` is 'ClusterIP'"),
        );
    });
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if ((p.nodePort ?? 0) === 0) return;
    const key = `${p.protocol}/${p.nodePort}`;
    if (nodePorts.has(key)) out.push(duplicate(["spec", "ports", i, "nodePort"], p.nodePort));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p.protocol}/${p.port}`;
    if (portKeys.has(key))
      out.push({
        code: "duplicate",
        severity: "error",
        message: `Duplicate value: {"protocol":${JSON.stringify(p.protocol ?? "")},"port":${p.port ?? 0}}`,
        path: ["spec", "ports", i],
      });
    portKeys.add(key);
  });

  out.push(...validateSourceRanges(ctx, s, type));
  if (spec.allocateLoadBalancerNodePorts !== undefined && type !== "LoadBalancer")
    out.push(forbidden(["spec", "allocateLoadBalancerNodePorts"], LB_ONLY));
  out.push(...validateLoadBalancerClass(s, type));

  const etp = spec.externalTrafficPolicy ?? "";
  if (!externallyAccessible(s)) {
    if (etp !== "")
      out.push(
        invalid(
          ["spec", "externalTrafficPolicy"],
          etp,
          "may only be set for externally-accessible services",
        ),
      );
  } else if (etp === "") out.push(required(["spec", "externalTrafficPolicy"]));
  else if (!TRAFFIC_POLICIES.includes(etp))
    out.push(unsupported(["spec", "externalTrafficPolicy"], etp, TRAFFIC_POLICIES));
  const hcnp = spec.healthCheckNodePort ?? 0;
  const needsHealthCheck = type === "LoadBalancer" && etp === "Local";
  if (!needsHealthCheck && hcnp !== 0)
    out.push(
      invalid(
        ["spec", "healthCheckNodePort"],
        hcnp,
        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
      ),
    );
  else if (needsHealthCheck && hcnp !== 0)
    for (const m of portNumProblems(hcnp))
      out.push(invalid(["spec", "healthCheckNodePort"], hcnp, m));

  const itp = spec.internalTrafficPolicy;
  if (itp === undefined && (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP"))
    out.push(required(["spec", "internalTrafficPolicy"]));
  if (itp !== undefined && !TRAFFIC_POLICIES.includes(itp))
    out.push(unsupported(["spec", "internalTrafficPolicy"], itp, TRAFFIC_POLICIES));
  const td = svc.spec?.trafficDistribution;
  if (td !== undefined && !TRAFFIC_DISTRIBUTIONS.includes(td))
    out.push(unsupported(["spec", "trafficDistribution"], td, TRAFFIC_DISTRIBUTIONS));

  (s.status?.loadBalancer?.ingress ?? []).forEach((ing, i) => {
    const p = ["status", "loadBalancer", "ingress", i];
    if ((ing.ip ?? "") !== "")
      out.push(...checkIP([...p, "ip"], ing.ip ?? "", strictIPs(ctx)).issues);
    if (ing.ipMode !== undefined) {
      if (!["VIP", "Proxy"].includes(ing.ipMode))
        out.push(unsupported([...p, "ipMode"], ing.ipMode, ["Proxy", "VIP"]));
      if ((ing.ip ?? "") === "")
        out.push(forbidden([...p, "ipMode"], "may not be specified when `ip` is not set"));
    }
    if ((ing.hostname ?? "") !== "")
      out.push(...validateIngressHostname(ing.hostname ?? "", [...p, "hostname"]));
  });
  return out;
}
