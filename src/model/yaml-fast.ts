/**
 * The fast decoder for manifest text. js-yaml builds plain values several times faster than the
 * `yaml` Document API and computes no position; the loader re-reads one document with the
 * `yaml` path (yaml-documents.ts) only when it has something to report there.
 *
 * The two must agree on every value, so plain scalars resolve with the `yaml` package's own
 * YAML 1.2 core-schema tags (`~`, `0o17`, `0x1F`, `.inf` mean what they mean on the slow path),
 * and the decoder declines (returns undefined) wherever its answer could differ: any js-yaml
 * error (syntax, a duplicate key, nesting deeper than the limit), and text that may use what
 * only the slow path models or words differently — anchors, aliases, tags, complex keys, merge
 * keys, directives, document end markers, reserved indicators, tabs, a byte-order mark.
 * test/model/load-fast.test.ts checks the agreement as a property.
 */
import { FAILSAFE_SCHEMA, loadAll, Type, type LoadOptions } from "js-yaml";
import { isScalar, Schema, type ScalarTag } from "yaml";

/** Characters that may open an anchor, alias, tag, complex key or reserved indicator. */
const INDICATORS = /[&*!?@`]/g;
/** Before an indicator: a line start, blank or flow indicator (or `:` after a JSON-like key). */
const INDICATOR_CONTEXT = " \t\r\n[]{},:";
/** Directives, document end markers. */
const LINE_START_SLOW = /^(?:%|\.\.\.)/m;

/**
 * Whether `text` may use what only the slow path models. An indicator character inside a quoted
 * string or a comment also answers yes: that only costs speed.
 */
function needsSlowPath(text: string): boolean {
  if (text.includes("\t") || text.includes("\uFEFF") || text.includes("<<")) return true;
  if (LINE_START_SLOW.test(text)) return true;
  INDICATORS.lastIndex = 0;
  for (let m = INDICATORS.exec(text); m !== null; m = INDICATORS.exec(text)) {
    if (m.index === 0 || INDICATOR_CONTEXT.includes(text[m.index - 1]!)) return true;
  }
  return false;
}

/** The `yaml` core schema's implicit scalar tags, in the order the composer tries them. */
const CORE_SCALAR_TAGS: readonly ScalarTag[] = new Schema({}).tags.filter(
  (t): t is ScalarTag => t.default === true && "test" in t && t.test !== undefined,
);

/**
 * The tags a plain scalar may match, by its first character: no core tag matches a scalar that
 * starts otherwise (most keys and names), so those skip the eight regular expressions.
 */
function candidateTags(data: string): readonly ScalarTag[] {
  if (data === "") return CORE_SCALAR_TAGS;
  const c = data.charCodeAt(0);
  return (c >= 0x30 && c <= 0x39) || "+-.~nNtTfF".includes(data[0]!) ? CORE_SCALAR_TAGS : NONE;
}
const NONE: readonly ScalarTag[] = [];

/** What `yaml` passes a tag's `resolve` by default (ints as numbers). */
const RESOLVE_OPTIONS = { intAsBigInt: false } as const;

class Declined extends Error {}

/** The tag `resolve` found for the scalar `construct` is about to build (js-yaml calls them in turn). */
let matched: ScalarTag | undefined;

const corePlainScalar = new Type("tag:kube-netsim.dev,2026:core-plain", {
  kind: "scalar",
  resolve: (data: unknown): boolean => {
    if (typeof data !== "string") return false;
    matched = candidateTags(data).find((t) => t.test!.test(data));
    return matched !== undefined;
  },
  construct: (data: string): unknown => {
    const tag = matched;
    if (tag === undefined) throw new Declined();
    const r = tag.resolve(
      data,
      () => {
        throw new Declined();
      },
      RESOLVE_OPTIONS,
    );
    const v: unknown = isScalar(r) ? r.value : r;
    if (typeof v === "bigint") return Number(v);
    return typeof v === "number" || typeof v === "string" || typeof v === "boolean" ? v : null;
  },
});

const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: [corePlainScalar] });

export interface FastDocuments {
  /** One value per document (null for an empty one), in order. */
  readonly values: readonly unknown[];
  /** Offset of each document's top-level node. */
  readonly starts: readonly number[];
}

/** The documents of `text`, or undefined where only the slow path may answer. */
export function decodeFast(text: string, maxDepth: number): FastDocuments | undefined {
  if (needsSlowPath(text)) return undefined;
  const starts: number[] = [];
  let values: unknown[];
  const options = {
    schema: SCHEMA,
    // js-yaml's own nesting limit (its State type in @types/js-yaml predates it).
    maxDepth,
    listener: (event: string, state: { readonly depth: number; readonly position: number }) => {
      if (event === "open" && state.depth === 1) starts.push(state.position);
    },
  };
  try {
    values = loadAll(text, undefined, options as unknown as LoadOptions);
  } catch {
    return undefined;
  }
  if (starts.length !== values.length) return undefined;
  return { values, starts };
}
