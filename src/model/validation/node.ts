/** Node and Namespace validation (ValidateNode's spec checks; ValidateNamespace's name). */
import type { Namespace, Node } from "../kinds.js";
import { duplicate, invalid, unsupported, type FieldIssue } from "./field-issue.js";
import { checkCIDR, checkIP } from "./ip-fields.js";
import { validateObjectMeta } from "./meta.js";
import { dns1123LabelProblems, dns1123SubdomainProblems } from "./names.js";
import { strictIPs, type ValidationContext } from "./context.js";

const ADDRESS_TYPES = ["ExternalDNS", "ExternalIP", "Hostname", "InternalDNS", "InternalIP"];

export function validateNamespace(_ctx: ValidationContext, ns: Namespace): FieldIssue[] {
  return validateObjectMeta(ns.metadata, false, dns1123LabelProblems);
}

export function validateNode(ctx: ValidationContext, node: Node): FieldIssue[] {
  const out = validateObjectMeta(node.metadata, false, dns1123SubdomainProblems);
  const cidrs = node.spec?.podCIDRs ?? [];
  const path = ["spec", "podCIDRs"];
  const families: string[] = [];
  cidrs.forEach((c, i) => {
    const r = checkCIDR([...path, i], c, strictIPs(ctx));
    out.push(...r.issues);
    if (r.cidr !== undefined) families.push(r.cidr.family);
  });
  if (cidrs.length > 1) {
    if (cidrs.length > 2 || families.length !== 2 || families[0] === families[1])
      out.push(invalid(path, cidrs, "may specify no more than one CIDR for each IP family"));
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) out.push(duplicate([...path, i], c));
      seen.add(c);
    });
  }
  // Node addresses are written by kubelet and not validated by the API server; kube-netsim
  // reads InternalIP/ExternalIP as node IPs, so problems there are worth a warning.
  (node.status?.addresses ?? []).forEach((a, i) => {
    const p = ["status", "addresses", i];
    // Required fields may be missing (dropped for a wrong type); Go would see "".
    const type = a.type ?? "";
    if (!ADDRESS_TYPES.includes(type))
      out.push({ ...unsupported([...p, "type"], type, ADDRESS_TYPES), severity: "warning" });
    else if (type === "InternalIP" || type === "ExternalIP")
      for (const issue of checkIP([...p, "address"], a.address ?? "", true).issues)
        out.push({ ...issue, severity: "warning" });
  });
  return out;
}
