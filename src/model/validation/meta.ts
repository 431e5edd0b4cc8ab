/**
 * ObjectMeta, labels, annotations and label selectors, as apimachinery validates them
 * (api/validation/objectmeta.go, apis/meta/v1/validation).
 */
import type { LabelSelector, ObjectMeta } from "../kinds.js";
import { forbidden, invalid, required, type FieldIssue, type FieldPath } from "./field-issue.js";
import { dns1123LabelProblems, labelKeyProblems, labelValueProblems } from "./names.js";

export type NameRule = (name: string) => string[];

/**
 * apimachinery's `maskTrailingDash`, used when a name rule checks a `generateName` prefix (a
 * random suffix follows it, so a trailing '-' is fine). It keeps upstream's quirk of replacing
 * the last two characters by "a".
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

export function validateObjectMeta(
  meta: ObjectMeta | undefined,
  namespaced: boolean,
  nameRule: NameRule,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  const m = meta ?? {};
  const name = m.name ?? "";
  const generateName = m.generateName ?? "";
  if (generateName !== "")
    for (const msg of nameRule(maskTrailingDash(generateName)))
      out.push(invalid(["metadata", "generateName"], generateName, msg));
  if (name === "") out.push(required(["metadata", "name"], "name or generateName is required"));
  else for (const msg of nameRule(name)) out.push(invalid(["metadata", "name"], name, msg));
  if (namespaced) {
    const ns = m.namespace ?? "";
    for (const msg of dns1123LabelProblems(ns))
      out.push(invalid(["metadata", "namespace"], ns, msg));
  }
  // Most objects have no annotations, many no labels: no path or list made for them.
  if (m.labels !== undefined)
    for (const issue of validateLabels(m.labels, ["metadata", "labels"])) out.push(issue);
  if (m.annotations !== undefined)
    for (const issue of validateAnnotations(m.annotations, ["metadata", "annotations"]))
      out.push(issue);
  return out;
}

export function validateLabelName(key: string, path: FieldPath): FieldIssue[] {
  return labelKeyProblems(key).map((msg) => invalid(path, key, msg));
}

/** `ValidateLabels`: keys and values are reported at the map's path, as upstream does. */
export function validateLabels(
  labels: Readonly<Record<string, string>> | undefined,
  path: FieldPath,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  if (labels === undefined) return out;
  for (const k of Object.keys(labels)) {
    const v = labels[k]!;
    for (const msg of labelKeyProblems(k)) out.push(invalid(path, k, msg));
    for (const msg of labelValueProblems(v)) out.push(invalid(path, v, msg));
  }
  return out;
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
  path: FieldPath,
): FieldIssue[] {
  const out: FieldIssue[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of labelKeyProblems(k.toLowerCase())) out.push(invalid(path, k, msg));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT)
    out.push({
      code: "too-many",
      severity: "error",
      message: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
      path,
    });
  return out;
}

/** `ValidateLabelSelector` (AllowInvalidLabelValueInSelector off, as on create). */
export function validateLabelSelector(
  selector: LabelSelector | undefined,
  path: FieldPath,
): FieldIssue[] {
  if (selector === undefined) return [];
  const out: FieldIssue[] = [];
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const p = [...path, "matchExpressions", i];
    const values = req.values ?? [];
    switch (req.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0)
          out.push(
            required([...p, "values"], "must be specified when `operator` is 'In' or 'NotIn'"),
          );
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0)
          out.push(
            forbidden(
              [...p, "values"],
              "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
          );
        break;
      default:
        out.push(invalid([...p, "operator"], req.operator ?? "", "not a valid selector operator"));
    }
    out.push(...validateLabelName(req.key ?? "", [...p, "key"]));
    values.forEach((v, j) => {
      for (const msg of labelValueProblems(v)) out.push(invalid([...p, "values", j], v, msg));
    });
  });
  out.push(...validateLabels(selector.matchLabels, [...path, "matchLabels"]));
  return out;
}
