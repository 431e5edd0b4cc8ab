/**
 * Kubernetes label selectors compiled into predicates (apimachinery `Requirement.Matches`):
 * matchLabels and every expression are ANDed; `{k: v}` needs the key present and equal (also for
 * `v = ""`); `NotIn` matches when the key is missing; an empty selector matches everything.
 * An unknown operator makes the selector match nothing (fail closed) and is reported. Same
 * semantics as model/selector.ts `matchesLabelSelector` (a test checks they agree); compiled here
 * because truth tables call it millions of times.
 */
import type { LabelSelector } from "../model/kinds.js";
import type { Labels } from "../model/selector.js";

export interface CompiledSelector {
  /** True for `{}` (and for a null selector where the API reads null as "everything"). */
  readonly matchesAll: boolean;
  readonly matches: (labels: Labels) => boolean;
  /** Problems found while compiling (unknown operator, values on Exists, ...). */
  readonly problems: readonly string[];
  /** Short human form: `pod=b, ns NotIn (x)`. */
  readonly text: string;
}

type Requirement = (labels: Labels) => boolean;

function has(labels: Labels, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(labels, key);
}

export function compileSelector(sel: LabelSelector | null | undefined): CompiledSelector {
  const reqs: Requirement[] = [];
  const texts: string[] = [];
  const problems: string[] = [];
  let failClosed = false;
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) {
    reqs.push((l) => has(l, k) && l[k] === v);
    texts.push(`${k}=${v}`);
  }
  for (const [i, e] of (sel?.matchExpressions ?? []).entries()) {
    const key = e.key;
    const values = e.values ?? [];
    const set = new Set(values);
    switch (e.operator) {
      case "In":
        if (values.length === 0)
          problems.push(`matchExpressions[${i}]: In needs at least one value`);
        reqs.push((l) => has(l, key) && set.has(l[key] ?? ""));
        texts.push(`${key} in (${values.join(",")})`);
        break;
      case "NotIn":
        if (values.length === 0)
          problems.push(`matchExpressions[${i}]: NotIn needs at least one value`);
        reqs.push((l) => !has(l, key) || !set.has(l[key] ?? ""));
        texts.push(`${key} notin (${values.join(",")})`);
        break;
      case "Exists":
        if (values.length > 0) problems.push(`matchExpressions[${i}]: Exists takes no values`);
        reqs.push((l) => has(l, key));
        texts.push(key);
        break;
      case "DoesNotExist":
        if (values.length > 0)
          problems.push(`matchExpressions[${i}]: DoesNotExist takes no values`);
        reqs.push((l) => !has(l, key));
        texts.push(`!${key}`);
        break;
      default:
        problems.push(
          `matchExpressions[${i}]: unsupported operator "${String(e.operator)}": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
        );
        failClosed = true;
    }
  }
  const text = texts.length === 0 ? "{}" : texts.join(", ");
  if (failClosed) return { matchesAll: false, matches: () => false, problems, text };
  if (reqs.length === 0) return { matchesAll: true, matches: () => true, problems, text };
  const matches =
    reqs.length === 1
      ? (reqs[0] as Requirement)
      : (l: Labels): boolean => {
          for (const r of reqs) if (!r(l)) return false;
          return true;
        };
  return { matchesAll: false, matches, problems, text };
}
