/**
 * The nesting limit of manifest YAML. The `yaml` composer and the loader recurse once per
 * level, so a deeply nested file (`[[[[…`) would exhaust the stack, and the memory for its
 * field paths grows with the square of the depth; it is refused, with a position, before the
 * `yaml` path builds anything. Kubernetes objects nest about 10 levels, a List adds 2.
 */
import { FAILSAFE_SCHEMA, loadAll, Type, type LoadOptions } from "js-yaml";

/**
 * Nodes on the path from a document's top-level node (level 1) to its deepest node, that
 * node included: `a: [b]` has 3.
 */
export const MAX_YAML_DEPTH = 200;

/** Any tag is accepted here: this pass only measures depth. */
const anyTag = (kind: "scalar" | "sequence" | "mapping"): Type =>
  new Type("", { kind, multi: true, construct: (data: unknown) => data });
const ANY_TAG_SCHEMA = FAILSAFE_SCHEMA.extend({
  explicit: [anyTag("scalar"), anyTag("sequence"), anyTag("mapping")],
});

/**
 * The offset where `text` first nests deeper than MAX_YAML_DEPTH, or undefined. A syntax
 * error before that point ends the scan (the `yaml` path reports it); the loader's own depth
 * check catches what lies behind it.
 */
export function tooDeepAt(text: string): number | undefined {
  try {
    loadAll(text, undefined, {
      schema: ANY_TAG_SCHEMA,
      json: true,
      maxDepth: MAX_YAML_DEPTH,
    } as LoadOptions);
  } catch (e) {
    const mark = (e as { mark?: { position?: unknown } }).mark;
    if (
      e instanceof Error &&
      e.message.startsWith("nesting exceeded maxDepth") &&
      typeof mark?.position === "number"
    )
      return mark.position;
  }
  return undefined;
}
