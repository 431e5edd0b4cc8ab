/**
 * `labelSelector(keys, values)`: valid label selectors over a small vocabulary of keys and values
 * (so they often match generated labels), covering `{}`, matchLabels only, and every operator.
 * Values lists are non-empty for In/NotIn and absent for Exists/DoesNotExist, as validation
 * requires.
 */
import fc from "fast-check";
import type { LabelSelector } from "../../model/kinds.js";

export function labelSelector(
  keys: readonly string[] = ["app", "tier", "env"],
  values: readonly string[] = ["a", "b", ""],
): fc.Arbitrary<LabelSelector> {
  const key = fc.constantFrom(...keys);
  const value = fc.constantFrom(...values);
  const requirement = fc.oneof(
    fc.record({
      key,
      operator: fc.constantFrom("In", "NotIn"),
      values: fc.uniqueArray(value, { minLength: 1, maxLength: values.length }),
    }),
    fc.record({ key, operator: fc.constantFrom("Exists", "DoesNotExist") }),
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({}) },
    {
      weight: 4,
      arbitrary: fc
        .record(
          {
            matchLabels: fc.dictionary(key, value, { maxKeys: 2 }),
            matchExpressions: fc.array(requirement, { maxLength: 3 }),
          },
          { requiredKeys: [] },
        )
        .map((s) => s as LabelSelector),
    },
  );
}

/** Labels over the same vocabulary. */
export function selectorLabels(
  keys: readonly string[] = ["app", "tier", "env"],
  values: readonly string[] = ["a", "b", ""],
): fc.Arbitrary<Record<string, string>> {
  return fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...values), {
    maxKeys: keys.length,
  });
}
