/**
 * API-server defaulting, per kind, applied in place to freshly decoded (mutable) objects before
 * validation, as the API server does. Sources: kubernetes pkg/apis/core/v1/defaults.go
 * (SetDefaults_Service, SetDefaults_Pod, SetDefaults_ContainerPort, SetDefaults_Namespace,
 * SetDefaults_Endpoints), pkg/apis/networking/v1/defaults.go, pkg/apis/discovery/v1/defaults.go,
 * the v1 conversions that fill `clusterIPs`/`podIPs`/`podCIDRs` from their singular fields, the
 * Service registry's IP-family defaulting, and the network-policy-api CRD defaults (protocol TCP).
 * Every function tolerates any shape: the schema check has already removed mistyped fields, and
 * the fuzz test feeds arbitrary objects.
 */
import { ipFamilyOf } from "../net/index.js";
import { asArray, asRecord, isRecord, type PlainRecord } from "../util/plain.js";

export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
export const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

function records(v: unknown): PlainRecord[] {
  return (asArray(v) ?? []).filter(isRecord);
}

function ensureRecord(parent: PlainRecord, key: string): PlainRecord {
  const cur = parent[key];
  if (isRecord(cur)) return cur;
  const fresh: PlainRecord = {};
  parent[key] = fresh;
  return fresh;
}

/**
 * Go's zero value for a required field the input left out (or that the shape check removed for
 * a wrong type): what the API server's Go structs hold, so validation reports what upstream
 * reports (`Invalid value: 0` for a missing port) and every later stage, which reads these
 * fields as the Kubernetes types declare them, sees a well-typed object even in warn mode.
 */
function zero(rec: PlainRecord, key: string, value: unknown): void {
  if (rec[key] === undefined || rec[key] === null) rec[key] = value;
}

function unset(v: unknown): boolean {
  return v === undefined || v === null || v === "";
}

export function defaultNamespace(obj: PlainRecord): void {
  const meta = asRecord(obj["metadata"]);
  const name = meta?.["name"];
  if (meta === undefined || typeof name !== "string" || name === "") return;
  const labels = ensureRecord(meta, "labels");
  labels[NAMESPACE_NAME_LABEL] = name;
}

/** True for the types whose ports are reachable from outside the cluster (`ExternallyAccessible`). */
function externallyAccessible(spec: PlainRecord): boolean {
  const t = spec["type"];
  return (
    t === "NodePort" ||
    t === "LoadBalancer" ||
    (t === "ClusterIP" && (asArray(spec["externalIPs"])?.length ?? 0) > 0)
  );
}

export function defaultService(obj: PlainRecord): void {
  const spec = ensureRecord(obj, "spec");
  if (unset(spec["sessionAffinity"])) spec["sessionAffinity"] = "None";
  if (spec["sessionAffinity"] === "None") delete spec["sessionAffinityConfig"];
  if (spec["sessionAffinity"] === "ClientIP") {
    const cfg = asRecord(spec["sessionAffinityConfig"]);
    const clientIP = asRecord(cfg?.["clientIP"]);
    if (clientIP === undefined || clientIP["timeoutSeconds"] == null)
      spec["sessionAffinityConfig"] = {
        clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS },
      };
  }
  if (unset(spec["type"])) spec["type"] = "ClusterIP";
  for (const port of records(spec["ports"])) {
    zero(port, "port", 0);
    if (unset(port["protocol"])) port["protocol"] = "TCP";
    const tp = port["targetPort"];
    if (tp === undefined || tp === null || tp === 0 || tp === "") port["targetPort"] = port["port"];
  }
  if (externallyAccessible(spec) && unset(spec["externalTrafficPolicy"]))
    spec["externalTrafficPolicy"] = "Cluster";
  const type = spec["type"];
  if (
    spec["internalTrafficPolicy"] == null &&
    (type === "ClusterIP" || type === "NodePort" || type === "LoadBalancer")
  )
    spec["internalTrafficPolicy"] = "Cluster";
  if (type === "LoadBalancer") {
    if (spec["allocateLoadBalancerNodePorts"] == null) spec["allocateLoadBalancerNodePorts"] = true;
    const ingress = records(asRecord(asRecord(obj["status"])?.["loadBalancer"])?.["ingress"]);
    for (const ing of ingress)
      if (typeof ing["ip"] === "string" && ing["ip"] !== "" && ing["ipMode"] == null)
        ing["ipMode"] = "VIP";
  }
  defaultServiceIPFamilies(spec);
}

/**
 * `clusterIPs` from `clusterIP` (the v1 conversion), then the registry's family defaulting for
 * what can be decided offline: families follow the cluster IPs; a policy left out is
 * RequireDualStack for two IPs or families and for a headless service without a selector
 * (kubernetes.io "IPv4/IPv6 dual-stack"), SingleStack otherwise. Families the API
 * server would take from its own service CIDRs stay unset, because no cluster is there to ask.
 */
function defaultServiceIPFamilies(spec: PlainRecord): void {
  const type = spec["type"];
  if (type === "ExternalName") return;
  const clusterIP = spec["clusterIP"];
  const clusterIPs = asArray(spec["clusterIPs"]);
  if (
    (clusterIPs === undefined || clusterIPs.length === 0) &&
    typeof clusterIP === "string" &&
    clusterIP !== ""
  )
    spec["clusterIPs"] = [clusterIP];
  else if (unset(clusterIP) && clusterIPs !== undefined && typeof clusterIPs[0] === "string")
    spec["clusterIP"] = clusterIPs[0];
  const ips = (asArray(spec["clusterIPs"]) ?? []).filter((x): x is string => typeof x === "string");
  const headless = ips[0] === "None";
  if (spec["ipFamilyPolicy"] == null || spec["ipFamilyPolicy"] === "") {
    const twoFamilies = ips.length === 2 || (asArray(spec["ipFamilies"])?.length ?? 0) === 2;
    spec["ipFamilyPolicy"] =
      (headless && spec["selector"] == null) || twoFamilies ? "RequireDualStack" : "SingleStack";
  }
  const families = asArray(spec["ipFamilies"]);
  if ((families === undefined || families.length === 0) && !headless && ips.length > 0) {
    const fams = ips.map((ip) => ipFamilyOf(ip));
    // Invalid combinations (a bad IP, two of one family) are left for validation to report.
    if (fams.every((f) => f !== undefined) && new Set(fams).size === fams.length)
      spec["ipFamilies"] = fams;
  }
}

function defaultContainerPorts(containers: unknown, hostNetwork: boolean): void {
  for (const c of records(containers))
    for (const port of records(c["ports"])) {
      zero(port, "containerPort", 0);
      if (unset(port["protocol"])) port["protocol"] = "TCP";
      if (hostNetwork && (port["hostPort"] == null || port["hostPort"] === 0))
        port["hostPort"] = port["containerPort"];
    }
}

export function defaultPod(obj: PlainRecord): void {
  const spec = asRecord(obj["spec"]);
  if (spec !== undefined) {
    const hostNetwork = spec["hostNetwork"] === true;
    defaultContainerPorts(spec["containers"], hostNetwork);
    defaultContainerPorts(spec["initContainers"], hostNetwork);
  }
  const status = asRecord(obj["status"]);
  if (status !== undefined) {
    // v1 conversion: podIP and podIPs[0] are the same address.
    const podIPs = asArray(status["podIPs"]);
    const podIP = status["podIP"];
    if ((podIPs === undefined || podIPs.length === 0) && typeof podIP === "string" && podIP !== "")
      status["podIPs"] = [{ ip: podIP }];
    else if (
      unset(podIP) &&
      podIPs !== undefined &&
      isRecord(podIPs[0]) &&
      typeof podIPs[0]["ip"] === "string"
    )
      status["podIP"] = podIPs[0]["ip"];
    const hostIPs = asArray(status["hostIPs"]);
    const hostIP = status["hostIP"];
    if (
      (hostIPs === undefined || hostIPs.length === 0) &&
      typeof hostIP === "string" &&
      hostIP !== ""
    )
      status["hostIPs"] = [{ ip: hostIP }];
  }
}

export function defaultNode(obj: PlainRecord): void {
  for (const a of records(asRecord(obj["status"])?.["addresses"])) {
    zero(a, "type", "");
    zero(a, "address", "");
  }
  const spec = asRecord(obj["spec"]);
  if (spec === undefined) return;
  const podCIDRs = asArray(spec["podCIDRs"]);
  const podCIDR = spec["podCIDR"];
  if (
    (podCIDRs === undefined || podCIDRs.length === 0) &&
    typeof podCIDR === "string" &&
    podCIDR !== ""
  )
    spec["podCIDRs"] = [podCIDR];
  else if (unset(podCIDR) && podCIDRs !== undefined && typeof podCIDRs[0] === "string")
    spec["podCIDR"] = podCIDRs[0];
}

export function defaultEndpointSlice(obj: PlainRecord): void {
  zero(obj, "addressType", "");
  zero(obj, "endpoints", []);
  // A list made only where one is missing (a slice has up to 1000 endpoints, each with its own).
  for (const ep of records(obj["endpoints"])) if (ep["addresses"] == null) ep["addresses"] = [];
  for (const port of records(obj["ports"])) {
    if (port["name"] == null) port["name"] = "";
    if (unset(port["protocol"])) port["protocol"] = "TCP";
  }
}

export function defaultEndpoints(obj: PlainRecord): void {
  for (const subset of records(obj["subsets"])) {
    for (const port of records(subset["ports"])) {
      zero(port, "port", 0);
      if (unset(port["protocol"])) port["protocol"] = "TCP";
    }
    for (const key of ["addresses", "notReadyAddresses"])
      for (const a of records(subset[key])) zero(a, "ip", "");
  }
}

export function defaultNetworkPolicy(obj: PlainRecord): void {
  const spec = ensureRecord(obj, "spec");
  if (spec["podSelector"] == null) spec["podSelector"] = {};
  for (const dir of ["ingress", "egress"] as const)
    for (const rule of records(spec[dir]))
      for (const port of records(rule["ports"]))
        if (unset(port["protocol"])) port["protocol"] = "TCP";
  const policyTypes = asArray(spec["policyTypes"]);
  if (policyTypes === undefined || policyTypes.length === 0) {
    const egress = asArray(spec["egress"]);
    spec["policyTypes"] =
      egress !== undefined && egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
  }
}

/**
 * ANP and BANP after validation: a CRD has no Go zero values (a missing required field is
 * "Required value"), so the required `spec`, `subject` and ANP `priority` are filled only once
 * validation has reported them, for warn mode to keep a well-typed object.
 */
export function fillAdminNetworkPolicyRequired(obj: PlainRecord): void {
  zero(obj, "spec", {});
  const spec = asRecord(obj["spec"]);
  if (spec === undefined) return;
  zero(spec, "subject", {});
  if (obj["kind"] === "AdminNetworkPolicy") zero(spec, "priority", 0);
}

/** ANP and BANP: the CRD schema defaults `protocol` to TCP in portNumber and portRange. */
export function defaultAdminNetworkPolicy(obj: PlainRecord): void {
  const spec = asRecord(obj["spec"]);
  if (spec === undefined) return;
  for (const dir of ["ingress", "egress"] as const)
    for (const rule of records(spec[dir]))
      for (const port of records(rule["ports"]))
        for (const key of ["portNumber", "portRange"] as const) {
          const p = asRecord(port[key]);
          if (p !== undefined && unset(p["protocol"])) p["protocol"] = "TCP";
        }
}
