/**
 * The fastest decoder, for a document that is JSON (`kubectl get … -o json` writes one `List`).
 * JSON is YAML, so such a document would otherwise go through js-yaml (yaml-fast.ts), which reads
 * a 27 MB List of 10,000 Services and their EndpointSlices about ten times slower than V8's own
 * `JSON.parse`. Like the other fast decoders it computes no position (the loader reads the
 * document again on the `yaml` path when it has something to report there), and it declines
 * (returns undefined) wherever its value could differ from the `yaml` path's, or the `yaml` path
 * would report something:
 * - text that is not exactly one JSON value whose top level is an object or an array;
 * - a duplicate key (`JSON.parse` keeps the last one; YAML refuses the mapping), found by counting
 *   the key strings in the text against the keys of the parsed objects;
 * - nesting near the loader's limit (MAX_YAML_DEPTH, counted by yaml-depth.ts in js-yaml's way,
 *   where a scalar may or may not count as a level): from two levels below it on, the other
 *   paths measure and report it as they always did;
 * - characters YAML does not allow in a stream or reads differently from JSON: DEL and the C1
 *   controls (JSON lets them stand unescaped in a string), a byte-order mark, U+FFFE/U+FFFF,
 *   the line and paragraph separators (line breaks in YAML 1.1), and tabs (refused by the
 *   other fast decoders too, to keep one rule);
 * - a `__proto__` key, which `JSON.parse` makes an own property and an object literal would not.
 * test/model/load-json.test.ts holds the values equal to the `yaml` path's as a property.
 */
import type { FastDocuments } from "./yaml-fast.js";

/** What YAML refuses, or may read otherwise, in a text JSON accepts. */
const NOT_PLAIN_JSON = /[\t\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|"__proto__"/;

/** JSON's white space between tokens, as YAML reads it too (tabs are declined, see above). */
export function isJsonBlank(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d;
}

/** The offset of the first character from `from` that is not JSON white space. */
function nonBlankFrom(text: string, from: number): number {
  let i = from;
  while (isJsonBlank(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Where the JSON value of a document starts: after white space and, in a stream of several
 * documents (`---` between JSON objects), its document start marker.
 */
function valueStart(text: string): number {
  const start = nonBlankFrom(text, 0);
  // A marker stands at the start of a line; indented, `---` is a plain scalar.
  const atLineStart = start === 0 || text.charCodeAt(start - 1) === 0x0a;
  if (!atLineStart || !text.startsWith("---", start)) return start;
  const after = text.charCodeAt(start + 3);
  return isJsonBlank(after) ? nonBlankFrom(text, start + 3) : start;
}

/**
 * How many strings of `text` (valid JSON) are keys: each is followed, after white space, by a
 * `:`. A `"` is found with `indexOf` (native), and a string ends at the first `"` not escaped
 * (preceded by an even number of backslashes).
 */
function keyStrings(text: string): number {
  let keys = 0;
  let i = text.indexOf('"');
  while (i !== -1) {
    let end = text.indexOf('"', i + 1);
    for (;;) {
      // Never in a text JSON.parse read; a guard against looping on any other.
      if (end === -1) return -1;
      let slashes = 0;
      while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
      if (slashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    let j = end + 1;
    let c = text.charCodeAt(j);
    while (c === 0x20 || c === 0x0a || c === 0x0d) c = text.charCodeAt(++j);
    if (c === 0x3a) keys++;
    i = text.indexOf('"', j);
  }
  return keys;
}

/**
 * The keys of every object in `value`, or -1 when a node lies at level `limit` or deeper (`{"a":
 * [1]}` has 3 levels).
 */
function countKeys(value: unknown, depth: number, limit: number): number {
  if (depth >= limit) return -1;
  if (typeof value !== "object" || value === null) return 0;
  let keys = 0;
  if (Array.isArray(value)) {
    for (const v of value as unknown[]) {
      const k = countKeys(v, depth + 1, limit);
      if (k < 0) return -1;
      keys += k;
    }
    return keys;
  }
  for (const key in value) {
    keys++;
    const k = countKeys((value as Record<string, unknown>)[key], depth + 1, limit);
    if (k < 0) return -1;
    keys += k;
  }
  return keys;
}

/** The one document `text` holds, when it is plain JSON the `yaml` path reads the same way. */
export function decodeJson(text: string, maxDepth: number): FastDocuments | undefined {
  const start = valueStart(text);
  const first = text.charCodeAt(start);
  if (first !== 0x7b && first !== 0x5b) return undefined;
  const json = start === 0 ? text : text.slice(start);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (NOT_PLAIN_JSON.test(json)) return undefined;
  const keys = countKeys(value, 1, maxDepth - 2);
  if (keys < 0 || keys !== keyStrings(json)) return undefined;
  return { values: [value], starts: [start] };
}
