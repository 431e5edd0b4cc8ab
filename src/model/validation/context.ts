/** What validation needs besides the object: feature gates, and helpers derived from them. */
import { featureEnabled, type FeatureGates } from "../feature-gates.js";
import { unsupported, type FieldIssue, type FieldPath } from "./field-issue.js";

export interface ValidationContext {
  readonly featureGates: FeatureGates;
}

export function strictIPs(ctx: ValidationContext): boolean {
  return featureEnabled(ctx.featureGates, "StrictIPCIDRValidation");
}

/**
 * Protocol check with the supported list in the order the given API prints it (`sorted`: core
 * and discovery print a sorted set, networking writes TCP, UDP, SCTP). With SCTPSupport off, SCTP
 * is rejected with only TCP and UDP listed, as API servers before SCTP went GA did.
 */
export function checkProtocol(
  ctx: ValidationContext,
  path: FieldPath,
  protocol: string,
  order: "sorted" | "networking",
): FieldIssue[] {
  // TCP and UDP are valid whatever the gates say (and are nearly every port the loader checks).
  if (protocol === "TCP" || protocol === "UDP") return [];
  const sctp = featureEnabled(ctx.featureGates, "SCTPSupport");
  const all = order === "sorted" ? ["SCTP", "TCP", "UDP"] : ["TCP", "UDP", "SCTP"];
  if (protocol === "SCTP" && !sctp) return [unsupported(path, protocol, ["TCP", "UDP"])];
  if (!all.includes(protocol)) return [unsupported(path, protocol, sctp ? all : ["TCP", "UDP"])];
  return [];
}
