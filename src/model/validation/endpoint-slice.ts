/** EndpointSlice (discovery.k8s.io/v1) and Endpoints (v1) validation. */
import type { EndpointPort } from "kubernetes-types/core/v1.js";
import type { EndpointSlice, Endpoints } from "../kinds.js";
import {
  duplicate,
  invalid,
  required,
  tooMany,
  unsupported,
  type FieldIssue,
  type FieldPath,
} from "./field-issue.js";
import { checkIP, isOrdinaryIPv4, nonSpecialIPProblems } from "./ip-fields.js";
import { validateLabelName, validateLabels, validateObjectMeta } from "./meta.js";
import {
  dns1123LabelProblems,
  dns1123SubdomainProblems,
  inclusiveRangeError,
  labelValueProblems,
} from "./names.js";
import { checkProtocol, strictIPs, type ValidationContext } from "./context.js";

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 100;
const MAX_HINTS = 8;
const MAX_TOPOLOGY_LABELS = 16;

/** apimachinery `IsFullyQualifiedDomainName` (the first problem only, as upstream returns). */
function fqdnProblems(path: FieldPath, value: string): FieldIssue[] {
  if (value === "") return [required(path)];
  const name = value.endsWith(".") ? value.slice(0, -1) : value;
  const sub = dns1123SubdomainProblems(name);
  if (sub.length > 0) return [invalid(path, name, sub.join(","))];
  const labels = name.split(".");
  if (labels.length < 2)
    return [invalid(path, name, "should be a domain with at least two segments separated by dots")];
  for (const label of labels) {
    const errs = dns1123LabelProblems(label);
    if (errs.length > 0) return [invalid(path, label, errs.join(","))];
  }
  return [];
}

/** `validateHints`: at most 8 zone and node hints, names unique and well-formed. */
function validateHints(
  hints: { forZones?: { name?: string }[]; forNodes?: { name?: string }[] } | undefined,
  path: FieldPath,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const lists = [
    { key: "forZones", rule: labelValueProblems },
    { key: "forNodes", rule: dns1123SubdomainProblems },
  ] as const;
  for (const { key, rule } of lists) {
    const list = hints?.[key] ?? [];
    if (list.length > MAX_HINTS) {
      out.push(tooMany([...path, key], list.length, MAX_HINTS));
      return out;
    }
    const seen = new Set<string>();
    list.forEach((h, i) => {
      const np = [...path, key, i, "name"];
      const name = h.name ?? "";
      if (seen.has(name)) out.push(duplicate(np, name));
      else seen.add(name);
      for (const m of rule(name)) out.push(invalid(np, name, m));
    });
  }
  return out;
}

/** Appends the problems of one endpoint address to `out` (the loader checks every address). */
function checkEndpointIP(
  strict: boolean,
  path: FieldPath,
  text: string,
  family: "IPv4" | "IPv6" | undefined,
  out: FieldIssue[],
): void {
  const r = checkIP(path, text, strict);
  if (r.ip === undefined) {
    if (family === undefined) out.push(...r.issues);
    else out.push(invalid(path, text, `must be a valid ${family} address`));
    return;
  }
  for (const issue of r.issues) out.push(issue);
  if (family !== undefined && r.ip.family !== family)
    out.push(invalid(path, text, `must be a valid ${family} address`));
  for (const m of nonSpecialIPProblems(r.ip, text)) out.push(invalid(path, text, m));
}

export function validateEndpointSlice(ctx: ValidationContext, slice: EndpointSlice): FieldIssue[] {
  const out = validateObjectMeta(slice.metadata, true, dns1123SubdomainProblems);
  const addressType = slice.addressType ?? "";
  if (addressType === "") out.push(required(["addressType"]));
  else if (!ADDRESS_TYPES.includes(addressType))
    out.push(unsupported(["addressType"], addressType, ADDRESS_TYPES));
  const endpoints = slice.endpoints ?? [];
  const strict = strictIPs(ctx);
  if (endpoints.length > MAX_ENDPOINTS)
    out.push(tooMany(["endpoints"], endpoints.length, MAX_ENDPOINTS));
  else
    for (let i = 0; i < endpoints.length; i++) {
      const ep = endpoints[i]!;
      const addresses = ep.addresses ?? [];
      if (addresses.length === 0)
        out.push(required(["endpoints", i, "addresses"], "must contain at least 1 address"));
      else if (addresses.length > MAX_ADDRESSES)
        out.push(tooMany(["endpoints", i, "addresses"], addresses.length, MAX_ADDRESSES));
      if (addressType === "IPv4" || addressType === "IPv6")
        for (let j = 0; j < addresses.length; j++) {
          if (addressType === "IPv4" && isOrdinaryIPv4(addresses[j]!)) continue;
          checkEndpointIP(
            strict,
            ["endpoints", i, "addresses", j],
            addresses[j]!,
            addressType,
            out,
          );
        }
      else if (addressType === "FQDN")
        for (let j = 0; j < addresses.length; j++)
          out.push(...fqdnProblems(["endpoints", i, "addresses", j], addresses[j]!));
      if (ep.deprecatedTopology !== undefined) {
        const topology = ep.deprecatedTopology;
        const path = ["endpoints", i, "deprecatedTopology"];
        if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS)
          out.push(tooMany(path, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
        out.push(...validateLabels(topology, path));
      }
      if (ep.hostname !== undefined)
        for (const m of dns1123LabelProblems(ep.hostname))
          out.push(invalid(["endpoints", i, "hostname"], ep.hostname, m));
      if (ep.nodeName !== undefined)
        for (const m of dns1123SubdomainProblems(ep.nodeName))
          out.push(invalid(["endpoints", i, "nodeName"], ep.nodeName, m));
      if (ep.hints !== undefined) out.push(...validateHints(ep.hints, ["endpoints", i, "hints"]));
    }
  const ports = slice.ports ?? [];
  if (ports.length > MAX_PORTS) out.push(tooMany(["ports"], ports.length, MAX_PORTS));
  else {
    const names = new Set<string>();
    ports.forEach((port, i) => {
      const p = ["ports", i];
      const name = port.name ?? "";
      if (name !== "")
        for (const m of dns1123LabelProblems(name)) out.push(invalid([...p, "name"], name, m));
      if (names.has(name)) out.push(duplicate([...p, "name"], name));
      else names.add(name);
      const protocol = port.protocol ?? "";
      if (protocol === "") out.push(required([...p, "protocol"]));
      else out.push(...checkProtocol(ctx, [...p, "protocol"], protocol, "sorted"));
      if (port.port !== undefined && (port.port < 0 || port.port > 65535))
        out.push(invalid([...p, "port"], port.port, inclusiveRangeError(0, 65535)));
      if (port.appProtocol !== undefined)
        out.push(...validateLabelName(port.appProtocol, [...p, "appProtocol"]));
    });
  }
  return out;
}

function validateEndpointPort(
  ctx: ValidationContext,
  port: EndpointPort,
  requireName: boolean,
  p: FieldPath,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const name = port.name ?? "";
  if (requireName && name === "") out.push(required([...p, "name"]));
  else if (name !== "")
    for (const m of dns1123LabelProblems(name)) out.push(invalid([...p, "name"], name, m));
  const n = port.port ?? 0;
  if (n < 1 || n > 65535) out.push(invalid([...p, "port"], n, inclusiveRangeError(1, 65535)));
  const protocol = port.protocol ?? "";
  if (protocol === "") out.push(required([...p, "protocol"]));
  else out.push(...checkProtocol(ctx, [...p, "protocol"], protocol, "sorted"));
  return out;
}

export function validateEndpoints(ctx: ValidationContext, ep: Endpoints): FieldIssue[] {
  const out = validateObjectMeta(ep.metadata, true, dns1123SubdomainProblems);
  (ep.subsets ?? []).forEach((ss, i) => {
    const p = ["subsets", i];
    if ((ss.addresses ?? []).length === 0 && (ss.notReadyAddresses ?? []).length === 0)
      out.push(required(p, "must specify `addresses` or `notReadyAddresses`"));
    for (const field of ["addresses", "notReadyAddresses"] as const)
      (ss[field] ?? []).forEach((a, j) => {
        const ap = [...p, field, j];
        checkEndpointIP(strictIPs(ctx), [...ap, "ip"], a.ip ?? "", undefined, out);
        if ((a.hostname ?? "") !== "")
          for (const m of dns1123LabelProblems(a.hostname ?? ""))
            out.push(invalid([...ap, "hostname"], a.hostname, m));
        if (a.nodeName !== undefined)
          for (const m of dns1123SubdomainProblems(a.nodeName))
            out.push(invalid([...ap, "nodeName"], a.nodeName, m));
      });
    const ports = ss.ports ?? [];
    ports.forEach((port, j) =>
      out.push(...validateEndpointPort(ctx, port, ports.length > 1, [...p, "ports", j])),
    );
  });
  return out;
}
