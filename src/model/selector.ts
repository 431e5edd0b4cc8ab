/**
 * Label selectors with the exact Kubernetes semantics (apimachinery labels.Selector built by
 * LabelSelectorAsSelector): every matchLabels pair AND every matchExpressions requirement must
 * hold. `In` needs the key present with a listed value; `NotIn` matches when the key is absent or
 * its value is not listed; `Exists`/`DoesNotExist` test the key only. An empty selector (`{}`)
 * matches everything. What a *missing* (null) selector means depends on the field (NetworkPolicy
 * podSelector: everything; a peer's namespaceSelector: the policy's own namespace), so callers
 * decide that before calling here.
 */
import type { LabelSelector } from "./kinds.js";

export type Labels = Readonly<Record<string, string>>;

export function isEmptySelector(selector: LabelSelector): boolean {
  return (
    Object.keys(selector.matchLabels ?? {}).length === 0 &&
    (selector.matchExpressions ?? []).length === 0
  );
}

export function matchesLabelSelector(selector: LabelSelector, labels: Labels | undefined): boolean {
  const l = labels ?? {};
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(l, k);
  for (const [k, v] of Object.entries(selector.matchLabels ?? {}))
    if (!has(k) || l[k] !== v) return false;
  for (const req of selector.matchExpressions ?? []) {
    const values = req.values ?? [];
    switch (req.operator) {
      case "In":
        if (!has(req.key) || !values.includes(l[req.key] as string)) return false;
        break;
      case "NotIn":
        if (has(req.key) && values.includes(l[req.key] as string)) return false;
        break;
      case "Exists":
        if (!has(req.key)) return false;
        break;
      case "DoesNotExist":
        if (has(req.key)) return false;
        break;
      default:
        // Validation rejects other operators; an unvalidated one selects nothing, as
        // LabelSelectorAsSelector's error does.
        return false;
    }
  }
  return true;
}
