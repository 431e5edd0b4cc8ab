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
import type { ScalarTag } from "yaml";
import { decodeJson } from "./json-fast.js";
import { coreTagOf, resolveCoreTag } from "./yaml-core-scalar.js";

/** Characters that may open an anchor, alias, tag, complex key or reserved indicator. */
const INDICATORS = /[&*!?@`]/g;
/** Before an indicator: a line start, blank or flow indicator (or `:` after a JSON-like key). */
const INDICATOR_CONTEXT = " \t\r\n[]{},:";
/** Directives, document end markers. */
const LINE_START_SLOW = /^(?:%|\.\.\.)/m;
/** An empty key in a flow collection (`{a, : b}`), which the two parsers read differently. */
const FLOW_EMPTY_KEY = /[,[{]\s*:/;
/** A flow sequence that may be a key without a value (`{a, [b]}`). */
const FLOW_SEQ_ENTRY = /[,{]\s*\[/;
/** A flow mapping that may be a key without a value (`{a, {b: c}}`): the keys are checked. */
const FLOW_MAP_ENTRY = /[,{]\s*\{/;

/**
 * Whether `text` may use what only the slow path models. An indicator character inside a quoted
 * string or a comment also answers yes: that only costs speed.
 */
function needsSlowPath(text: string): boolean {
  if (text.includes("\t") || text.includes("\uFEFF") || text.includes("<<")) return true;
  if (LINE_START_SLOW.test(text) || FLOW_EMPTY_KEY.test(text) || FLOW_SEQ_ENTRY.test(text))
    return true;
  // `"x"#c` is an error for `yaml` (a comment must follow a blank), js-yaml reads a comment.
  for (let i = text.indexOf("#"); i !== -1; i = text.indexOf("#", i + 1))
    if (i > 0 && !" \r\n".includes(text[i - 1]!)) return true;
  if (multiLineFlowInBlock(text)) return true;
  INDICATORS.lastIndex = 0;
  for (let m = INDICATORS.exec(text); m !== null; m = INDICATORS.exec(text)) {
    if (m.index === 0 || INDICATOR_CONTEXT.includes(text[m.index - 1]!)) return true;
  }
  return false;
}

/**
 * Whether a flow collection continues on the next line inside block YAML, where `yaml` requires
 * the continuation lines to be indented more than the block (js-yaml does not). A text that is
 * one flow collection (JSON) has no block around it. Brackets are counted per line, quoted or
 * not: a bracket inside a string only sends the file down the slow path.
 */
function multiLineFlowInBlock(text: string): boolean {
  const t = text.trim();
  if ((t.startsWith("{") || t.startsWith("[")) && !t.includes("\n---")) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x0a) {
      if (depth > 0) return true;
      depth = 0;
    }
  }
  return depth > 0;
}

class Declined extends Error {}

/** The tag `resolve` found for the scalar `construct` is about to build (js-yaml calls them in turn). */
let matched: ScalarTag | undefined;

const corePlainScalar = new Type("tag:kube-netsim.dev,2026:core-plain", {
  kind: "scalar",
  resolve: (data: unknown): boolean => {
    if (typeof data !== "string") return false;
    matched = coreTagOf(data);
    return matched !== undefined;
  },
  construct: (data: string): unknown => {
    const tag = matched;
    if (tag === undefined) throw new Declined();
    const v = resolveCoreTag(tag, data);
    if (v === undefined) throw new Declined();
    return v;
  },
});

const SCHEMA = FAILSAFE_SCHEMA.extend({ implicit: [corePlainScalar] });

/** What the listener reads of js-yaml's state (its State type in @types/js-yaml predates it). */
interface ListenerState {
  readonly depth: number;
  readonly position: number;
  readonly kind: string | null;
}

/**
 * Whether the scalar ending at `end` is quoted and runs over more than one line, where `yaml`
 * and js-yaml disagree on the indentation the continuation lines need. Found by scanning back
 * to the opening quote; an escaped quote may end the scan early only towards "yes".
 */
function quotedOverLines(text: string, end: number): boolean {
  const q = text.charCodeAt(end - 1);
  if (q !== 0x22 && q !== 0x27) return false;
  for (let i = end - 2; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) return true;
    if (c !== q) continue;
    if (q === 0x22 && text.charCodeAt(i - 1) === 0x5c) continue; // \"
    if (q === 0x27 && text.charCodeAt(i - 1) === 0x27) {
      i--; // ''
      continue;
    }
    return false;
  }
  return false;
}

/** Whether a `:` follows `offset` on its line: the node that ends there is a key. */
function isKeyAt(text: string, offset: number): boolean {
  let i = offset;
  while (text.charCodeAt(i) === 0x20) i++;
  return text.charCodeAt(i) === 0x3a;
}

/** Whether a mapping was used as a key somewhere in `v` (js-yaml keys it "[object Object]"). */
function hasMappingKey(v: unknown): boolean {
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (Array.isArray(x)) stack.push(...(x as unknown[]));
    else if (typeof x === "object" && x !== null)
      for (const [k, child] of Object.entries(x)) {
        if (k === "[object Object]") return true;
        stack.push(child);
      }
  }
  return false;
}

export interface FastDocuments {
  /** One value per document (null for an empty one), in order. */
  readonly values: readonly unknown[];
  /** Offset of each document's top-level node. */
  readonly starts: readonly number[];
}

/** The documents of `text`, or undefined where only the slow path may answer. */
export function decodeFast(text: string, maxDepth: number): FastDocuments | undefined {
  const json = decodeJson(text, maxDepth);
  if (json !== undefined) return json;
  if (needsSlowPath(text)) return undefined;
  const starts: number[] = [];
  /** Set when the text holds what the two parsers read differently (see below). */
  let complexKey = false;
  let values: unknown[];
  const options = {
    schema: SCHEMA,
    // js-yaml's own nesting limit (its State type in @types/js-yaml predates it).
    maxDepth,
    listener: (event: string, state: ListenerState) => {
      if (event === "open" && state.depth === 1) starts.push(state.position);
      // A collection used as a key (`{[a, b]: c}`): js-yaml keys it "a,b", `yaml` "[ a, b ]".
      else if (event === "close" && state.kind !== "scalar" && isKeyAt(text, state.position))
        complexKey = true;
      else if (
        event === "close" &&
        state.kind === "scalar" &&
        quotedOverLines(text, state.position)
      )
        complexKey = true;
    },
  };
  try {
    values = loadAll(text, undefined, options as unknown as LoadOptions);
  } catch {
    return undefined;
  }
  if (complexKey || starts.length !== values.length) return undefined;
  if (FLOW_MAP_ENTRY.test(text) && values.some(hasMappingKey)) return undefined;
  return { values, starts };
}
