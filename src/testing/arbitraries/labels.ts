/**
 * `labelKey()`, `labelValue()`, `labels()`: strings the API server accepts as label keys
 * (optional DNS-subdomain prefix, then a name of up to 63 characters) and values (empty, or up to
 * 63 characters starting and ending alphanumeric), biased to the empty value and maximum lengths.
 */
import fc from "fast-check";

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".split("");
const LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789".split("");

function word(
  chars: readonly string[],
  inner: readonly string[],
  maxLength: number,
): fc.Arbitrary<string> {
  const ends = fc.constantFrom(...chars);
  return fc.oneof(
    ends,
    fc
      .tuple(
        ends,
        fc.array(fc.constantFrom(...chars, ...inner), { maxLength: Math.max(0, maxLength - 2) }),
        ends,
      )
      .map(([a, mid, b]) => `${a}${mid.join("")}${b}`),
  );
}

/** The name part of a label key (also a valid label value). */
export function labelName(): fc.Arbitrary<string> {
  return word(ALNUM, ["-", "_", "."], 63);
}

export function dnsSubdomain(): fc.Arbitrary<string> {
  return fc
    .array(word(LOWER_ALNUM, ["-"], 20), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join("."));
}

export function labelKey(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: labelName() },
    { weight: 1, arbitrary: fc.tuple(dnsSubdomain(), labelName()).map(([p, n]) => `${p}/${n}`) },
  );
}

export function labelValue(): fc.Arbitrary<string> {
  return fc.oneof({ weight: 1, arbitrary: fc.constant("") }, { weight: 4, arbitrary: labelName() });
}

export function labels(): fc.Arbitrary<Record<string, string>> {
  return fc.dictionary(labelKey(), labelValue(), { maxKeys: 5 });
}
