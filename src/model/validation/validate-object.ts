/**
 * Dispatches an object to its kind's validation. `checkShape` runs first, on the raw decoded
 * object: it reports wrong types (and removes those fields, so defaulting and later checks only
 * ever see well-typed data) and unknown fields (warnings, like `kubectl --validate=warn`).
 * `validateObject` runs after defaulting, as the API server does.
 */
import { assertNever } from "../../util/assert-never.js";
import { fillAdminNetworkPolicyRequired } from "../defaults.js";
import type { PlainRecord } from "../../util/plain.js";
import type {
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
  ClusterNetworkPolicy,
  EndpointSlice,
  Endpoints,
  KindName,
  Namespace,
  NetworkPolicy,
  Node,
  Pod,
  Service,
  ServiceCIDR,
} from "../kinds.js";
import {
  validateAdminNetworkPolicy,
  validateBaselineAdminNetworkPolicy,
} from "./admin-network-policy.js";
import { validateClusterNetworkPolicy } from "./cluster-network-policy.js";
import type { ValidationContext } from "./context.js";
import { validateEndpointSlice, validateEndpoints } from "./endpoint-slice.js";
import type { FieldIssue } from "./field-issue.js";
import { validateNetworkPolicy } from "./network-policy.js";
import { validateNamespace, validateNode } from "./node.js";
import { validatePod } from "./pod.js";
import { validateService } from "./service.js";
import { validateServiceCIDR } from "./service-cidr.js";
import { checkObjectShape } from "./shape.js";
import { KIND_SHAPES } from "./shapes.js";

export type { ValidationContext };

export function checkShape(kind: KindName, obj: PlainRecord): FieldIssue[] {
  return checkObjectShape(obj, KIND_SHAPES[kind]);
}

function afterwards(issues: FieldIssue[], then: () => void): FieldIssue[] {
  then();
  return issues;
}

/**
 * Validates an object after defaulting. For the CRD kinds it then fills the required fields a
 * warn-mode load may keep missing (see fillAdminNetworkPolicyRequired).
 */
export function validateObject(
  kind: KindName,
  obj: PlainRecord,
  ctx: ValidationContext,
): FieldIssue[] {
  const o: unknown = obj;
  switch (kind) {
    case "Namespace":
      return validateNamespace(ctx, o as Namespace);
    case "Node":
      return validateNode(ctx, o as Node);
    case "Pod":
      return validatePod(ctx, o as Pod);
    case "Service":
      return validateService(ctx, o as Service);
    case "Endpoints":
      return validateEndpoints(ctx, o as Endpoints);
    case "EndpointSlice":
      return validateEndpointSlice(ctx, o as EndpointSlice);
    case "NetworkPolicy":
      return validateNetworkPolicy(ctx, o as NetworkPolicy);
    case "AdminNetworkPolicy":
      return afterwards(validateAdminNetworkPolicy(ctx, o as AdminNetworkPolicy), () =>
        fillAdminNetworkPolicyRequired(obj),
      );
    case "BaselineAdminNetworkPolicy":
      return afterwards(
        validateBaselineAdminNetworkPolicy(ctx, o as BaselineAdminNetworkPolicy),
        () => fillAdminNetworkPolicyRequired(obj),
      );
    case "ClusterNetworkPolicy":
      return validateClusterNetworkPolicy(ctx, o as ClusterNetworkPolicy);
    case "ServiceCIDR":
      return validateServiceCIDR(o as ServiceCIDR);
    default:
      return assertNever(kind);
  }
}
