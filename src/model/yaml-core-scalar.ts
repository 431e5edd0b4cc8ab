/**
 * Plain scalars as the `yaml` package's YAML 1.2 core schema resolves them (YAML 1.2.2 §10.3.2,
 * "Tag Resolution"): `~`, `null`, `true`, `0o17`, `0x1F`, `1e3`, `.inf` … mean what they mean on
 * the slow path, because the fast readers (yaml-subset.ts, yaml-fast.ts) ask the slow path's own
 * tags. Ints are numbers, as `yaml` gives them by default.
 */
import { isScalar, Schema, type ScalarTag } from "yaml";

/** The `yaml` core schema's implicit scalar tags, in the order the composer tries them. */
const CORE_SCALAR_TAGS: readonly ScalarTag[] = new Schema({}).tags.filter(
  (t): t is ScalarTag => t.default === true && "test" in t && t.test !== undefined,
);
const NONE: readonly ScalarTag[] = [];

/**
 * The tags a plain scalar may match, by its first character: no core tag matches a scalar that
 * starts otherwise (most keys and names), so those skip the eight regular expressions. Nor does
 * any match a scalar with two dots (a float has at most one): IP addresses skip them too.
 */
function candidateTags(data: string): readonly ScalarTag[] {
  if (data === "") return CORE_SCALAR_TAGS;
  const c = data.charCodeAt(0);
  if (!((c >= 0x30 && c <= 0x39) || "+-.~nNtTfF".includes(data[0]!))) return NONE;
  const dot = data.indexOf(".");
  return dot !== -1 && data.indexOf(".", dot + 1) !== -1 ? NONE : CORE_SCALAR_TAGS;
}

/** The core tag `data` resolves to, or undefined for a string. */
export function coreTagOf(data: string): ScalarTag | undefined {
  return candidateTags(data).find((t) => t.test!.test(data));
}

/** What `yaml` passes a tag's `resolve` by default (ints as numbers). */
const RESOLVE_OPTIONS = { intAsBigInt: false } as const;

/** A scalar value of the core schema. */
export type CoreScalar = string | number | boolean | null;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const DIGITS = 0;
const TWO_DOTS = 1;
const OTHER = 2;

/**
 * DIGITS when `data` is only decimal digits (up to 15 of them, `Number` gives the value exactly
 * as `yaml` does); TWO_DOTS when it holds two dots, which no core tag matches (a float has at
 * most one, see candidateTags); OTHER otherwise. One pass instead of a regular expression and
 * two searches.
 */
function digitsOrDots(data: string): number {
  let dots = 0;
  let digits = true;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 0x2e) {
      if (++dots === 2) return TWO_DOTS;
      digits = false;
    } else if (!isDigit(c)) digits = false;
  }
  return digits ? DIGITS : OTHER;
}

/**
 * The value of `tag` (from coreTagOf) for `data`, or undefined where the tag reports an error
 * (the caller then leaves the text to the slow path).
 */
export function resolveCoreTag(tag: ScalarTag, data: string): CoreScalar | undefined {
  let failed = false;
  const r = tag.resolve(
    data,
    () => {
      failed = true;
    },
    RESOLVE_OPTIONS,
  );
  if (failed) return undefined;
  const v: unknown = isScalar(r) ? r.value : r;
  if (typeof v === "bigint") return Number(v);
  return typeof v === "number" || typeof v === "string" || typeof v === "boolean" ? v : null;
}

/**
 * The core schema's null and bool words (its `null` and `bool` tags' tests, spelled out), which
 * skip the tag table: the tags' `resolve` builds a node for each.
 */
const WORDS: ReadonlyMap<string, CoreScalar> = new Map<string, CoreScalar>([
  ...["~", "null", "Null", "NULL", ""].map((w) => [w, null] as const),
  ...["true", "True", "TRUE"].map((w) => [w, true] as const),
  ...["false", "False", "FALSE"].map((w) => [w, false] as const),
]);

/** The length of the longest of WORDS (`false`): longer scalars (`node-a`) skip the lookup. */
const LONGEST_WORD = Math.max(...[...WORDS.keys()].map((w) => w.length));

/** The value of the plain scalar `data`, or undefined where only the slow path may answer. */
export function plainScalarValue(data: string): CoreScalar | undefined {
  // Ports, counts: the most common numbers skip the tag table (the core int tag, decimal);
  // and IP addresses, the most common scalars that start with a digit, are strings.
  if (data.length > 0 && isDigit(data.charCodeAt(0))) {
    const kind = digitsOrDots(data);
    if (kind === DIGITS && data.length <= 15) return Number(data);
    if (kind === TWO_DOTS) return data;
  }
  // Only the null and bool words start with a letter (the numbers start with a digit, a sign
  // or a dot): names (`node-a`, `ns1`, `nodePort`) skip the tags.
  const c = data.charCodeAt(0) | 0x20;
  if (data.length <= LONGEST_WORD && WORDS.has(data)) return WORDS.get(data)!;
  if (c >= 0x61 && c <= 0x7a) return data;
  const tag = coreTagOf(data);
  return tag === undefined ? data : resolveCoreTag(tag, data);
}
