/** ServiceCIDR (networking.k8s.io/v1): one or two CIDRs, at most one per family. */
import type { ServiceCIDR } from "../kinds.js";
import type { FieldIssue } from "./field-issue.js";
import { invalid, required } from "./field-issue.js";
import { checkCIDR } from "./ip-fields.js";
import { validateObjectMeta } from "./meta.js";
import { dns1123SubdomainProblems } from "./names.js";
import { parseCIDR } from "../../net/index.js";

export function validateServiceCIDR(sc: ServiceCIDR): FieldIssue[] {
  const out = validateObjectMeta(sc.metadata, false, dns1123SubdomainProblems);
  const cidrs = sc.spec?.cidrs ?? [];
  if (cidrs.length === 0) out.push(required(["spec", "cidrs"]));
  if (cidrs.length > 2) out.push(invalid(["spec", "cidrs"], cidrs, "may only hold up to 2 values"));
  cidrs.forEach((c, i) => out.push(...checkCIDR(["spec", "cidrs", i], c, true).issues));
  const families = cidrs.map((c) => parseCIDR(c, "lenient")?.family);
  if (cidrs.length === 2 && families[0] !== undefined && families[0] === families[1])
    out.push(
      invalid(
        ["spec", "cidrs"],
        cidrs,
        "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64",
      ),
    );
  return out;
}
