/**
 * Turns manifest text (multi-document YAML, or JSON, which is YAML) into plain objects with the
 * position of every field. `kind: List` is flattened into its items. The YAML AST is walked by
 * hand rather than with `toJS()` so that each value's position is recorded as it is built.
 * YAML 1.2 core schema, the same scalars JSON has; aliases are resolved with a size budget so a
 * "billion laughs" document is an error, not a hang.
 */
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type Node as YamlNode,
} from "yaml";
import { formatFieldPath, type Issue, type SourcePosition } from "./issue.js";
import type { FieldPositions } from "./field-positions.js";
import { isRecord, type PlainRecord } from "../util/plain.js";

export interface ManifestInput {
  readonly file: string;
  readonly text: string;
}

/** One top-level object: a document, or an item of a `kind: List`. */
export interface RawObject {
  readonly file: string;
  readonly value: PlainRecord;
  /** Field positions relative to `value`. */
  readonly positions: FieldPositions;
}

/** Nodes that alias expansion may add per document (Kubernetes manifests rarely use aliases). */
const MAX_ALIAS_NODES = 100_000;

class TooLarge extends Error {}

export function readManifests(inputs: readonly ManifestInput[]): {
  objects: RawObject[];
  issues: Issue[];
} {
  const objects: RawObject[] = [];
  const issues: Issue[] = [];
  for (const input of inputs) readOne(input, objects, issues);
  return { objects, issues };
}

function readOne(input: ManifestInput, objects: RawObject[], issues: Issue[]): void {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(input.text, {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
  });
  const pos = (offset: number): SourcePosition => {
    const lp = lineCounter.linePos(offset);
    return { file: input.file, line: lp.line, col: lp.col };
  };
  const list = Array.isArray(docs) ? docs : [];
  for (const doc of list) {
    if (doc.errors.length > 0) {
      for (const err of doc.errors)
        issues.push({
          code: "yaml-syntax",
          severity: "error",
          message: `YAML syntax error: ${firstLine(err.message)}`,
          source: pos(err.pos[0]),
          path: [],
        });
      continue;
    }
    if (doc.contents === null) continue; // empty document (`---` alone, or comments only)
    const positions: Record<string, SourcePosition> = {};
    let value: unknown;
    try {
      value = convert(doc, doc.contents, [], positions, pos, { count: 0 });
    } catch (e) {
      if (!(e instanceof TooLarge)) throw e;
      issues.push({
        code: "yaml-syntax",
        severity: "error",
        message: "YAML document too large after alias expansion",
        source: pos(doc.contents.range?.[0] ?? 0),
        path: [],
      });
      continue;
    }
    const docPos = positions[""] ?? { file: input.file, line: 1, col: 1 };
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) {
      issues.push({
        code: "not-an-object",
        severity: "error",
        message:
          "document is not an object (expected a mapping with apiVersion, kind and metadata)",
        source: docPos,
        path: [],
      });
      continue;
    }
    if (
      value["kind"] === "List" ||
      (value["kind"] === undefined && Array.isArray(value["items"]))
    ) {
      if (!Array.isArray(value["items"])) {
        issues.push({
          code: "invalid-type",
          severity: "error",
          message: "items: must be a list",
          source: docPos,
          path: ["items"],
        });
        continue;
      }
      const perItem = splitItemPositions(positions);
      value["items"].forEach((item: unknown, i: number) => {
        const prefix = formatFieldPath(["items", i]);
        const itemPos = positions[prefix] ?? docPos;
        if (!isRecord(item)) {
          issues.push({
            code: "not-an-object",
            severity: "error",
            message: "list item is not an object",
            source: itemPos,
            path: ["items", i],
          });
          return;
        }
        objects.push({ file: input.file, value: item, positions: perItem.get(i) ?? {} });
      });
      continue;
    }
    objects.push({ file: input.file, value, positions });
  }
}

function firstLine(s: string): string {
  return (s.split("\n")[0] ?? s).trim();
}

/** Positions of `items[i]...` keys, per item, with the `items[i]` prefix removed (one pass). */
function splitItemPositions(
  positions: Record<string, SourcePosition>,
): Map<number, Record<string, SourcePosition>> {
  const out = new Map<number, Record<string, SourcePosition>>();
  for (const [k, v] of Object.entries(positions)) {
    const m = /^items\[(\d+)\]/.exec(k);
    if (m === null) continue;
    const i = Number(m[1]);
    let item = out.get(i);
    if (item === undefined) {
      item = {};
      out.set(i, item);
    }
    item[k.slice(m[0].length).replace(/^\./, "")] = v;
  }
  return out;
}

function convert(
  doc: Document,
  node: unknown,
  path: (string | number)[],
  positions: Record<string, SourcePosition> | null,
  pos: (offset: number) => SourcePosition,
  budget: { count: number },
): unknown {
  // Inside an alias (positions === null) fields are not recorded: they take the position of the
  // field holding the alias, and only they count against the expansion budget.
  if (positions === null && ++budget.count > MAX_ALIAS_NODES) throw new TooLarge();
  const n = node as YamlNode | null;
  if (positions !== null && n?.range) {
    const key = formatFieldPath(path);
    if (positions[key] === undefined) positions[key] = pos(n.range[0]);
  }
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (target === undefined) return null;
    return convert(doc, target, path, null, pos, budget);
  }
  if (isMap(n)) {
    const out: PlainRecord = Object.create(null) as PlainRecord;
    for (const item of n.items) {
      if (!isPair(item)) continue;
      const key = keyString(item.key);
      if (key === "<<") continue; // merge keys: not Kubernetes YAML
      const childPath = [...path, key];
      const k = item.key as YamlNode | null;
      if (positions !== null && k?.range) positions[formatFieldPath(childPath)] = pos(k.range[0]);
      const v = convert(doc, item.value, childPath, positions, pos, budget);
      Object.defineProperty(out, key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return { ...out };
  }
  if (isSeq(n)) {
    return n.items.map((item, i) => convert(doc, item, [...path, i], positions, pos, budget));
  }
  if (isScalar(n)) {
    const v = n.value;
    if (typeof v === "bigint") return Number(v);
    if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
    return null;
  }
  return null;
}

function keyString(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  // A complex key (`? [a, b]: c`) cannot be a Kubernetes field; its YAML text keeps it visible.
  if (isMap(key) || isSeq(key)) return key.toString().trim();
  return "";
}
