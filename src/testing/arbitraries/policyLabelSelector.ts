/**
 * `policyLabelSelector(vocabulary)`: label selectors over a small vocabulary so that generated
 * selectors often match generated objects, biased to the edges: `{}`, an empty value, `NotIn` and
 * `DoesNotExist` on keys objects lack, several requirements ANDed.
 */
import fc from "fast-check";
import type { LabelSelector } from "../../model/kinds.js";

export interface LabelVocabulary {
  /** key -> possible values ("" is a valid label value). */
  readonly [key: string]: readonly string[];
}

/** Pod labels the policy arbitraries use. */
export const POD_LABELS: LabelVocabulary = { pod: ["a", "b", "c"], app: ["web", "db", ""] };
/** Namespace labels (the name label is added by the API server). */
export const NAMESPACE_LABELS: LabelVocabulary = { team: ["red", "blue", ""] };

export function labelsFrom(vocab: LabelVocabulary): fc.Arbitrary<Record<string, string>> {
  const keys = Object.keys(vocab);
  return fc
    .tuple(
      ...keys.map((k) => fc.option(fc.constantFrom(...(vocab[k] ?? [""])), { nil: undefined })),
    )
    .map((vals) => {
      const out: Record<string, string> = {};
      vals.forEach((v, i) => {
        if (v !== undefined) out[keys[i] as string] = v;
      });
      return out;
    });
}

export function policyLabelSelector(
  vocab: LabelVocabulary,
  extraKeys: readonly string[] = ["missing"],
): fc.Arbitrary<LabelSelector> {
  const keys = [...Object.keys(vocab), ...extraKeys];
  const values = (k: string): readonly string[] => vocab[k] ?? ["x"];
  const key = fc.constantFrom(...keys);
  const requirement = key.chain((k) =>
    fc.oneof(
      fc.record({
        key: fc.constant(k),
        operator: fc.constant("In"),
        values: fc.subarray([...values(k)], { minLength: 1 }),
      }),
      fc.record({
        key: fc.constant(k),
        operator: fc.constant("NotIn"),
        values: fc.subarray([...values(k)], { minLength: 1 }),
      }),
      fc.record({ key: fc.constant(k), operator: fc.constantFrom("Exists", "DoesNotExist") }),
    ),
  );
  const matchLabels = key.chain((k) => fc.constantFrom(...values(k)).map((v) => ({ [k]: v })));
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    { weight: 3, arbitrary: matchLabels.map((m) => ({ matchLabels: m })) },
    {
      weight: 2,
      arbitrary: fc
        .array(requirement, { minLength: 1, maxLength: 2 })
        .map((e) => ({ matchExpressions: e })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(matchLabels, requirement)
        .map(([m, e]) => ({ matchLabels: m, matchExpressions: [e] })),
    },
  );
}
