/**
 * Turns manifest text (multi-document YAML, or JSON, which is YAML) into plain objects with the
 * position of every field. `kind: List` is flattened into its items. YAML 1.2 core schema, the
 * same scalars JSON has.
 *
 * Two paths give the same objects. The fast one (yaml-fast.ts) decodes a whole file without
 * positions; each document's positions are computed when first read (see deferred.ts), by
 * reading that document again on the slow path. The slow path walks the `yaml` AST by hand
 * rather than with `toJS()`, recording each value's position as it is built; it reads every file
 * the fast path declines (syntax errors, anchors and aliases, tags…). Aliases are resolved with
 * a size budget so a "billion laughs" document is an error, not a hang, and an alias inside the
 * node it names is an error, not an endless expansion. Nesting deeper than MAX_YAML_DEPTH is
 * refused before anything is built.
 */
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  visit,
  type Alias,
  type Document,
  type Node as YamlNode,
} from "yaml";
import { deferred } from "./deferred.js";
import { formatFieldPath, type Issue, type SourcePosition } from "./issue.js";
import type { FieldPositions } from "./field-positions.js";
import { LineStarts } from "./line-starts.js";
import { MAX_YAML_DEPTH, tooDeepAt } from "./yaml-depth.js";
import { decodeFast, type FastDocuments } from "./yaml-fast.js";
import { isRecord, type PlainRecord } from "../util/plain.js";

export interface ManifestInput {
  readonly file: string;
  readonly text: string;
}

/** One top-level object: a document, or an item of a `kind: List`. */
export interface RawObject {
  readonly file: string;
  readonly value: PlainRecord;
  /** Field positions relative to `value` (computed when first read). */
  readonly positions: FieldPositions;
}

/** Nodes that alias expansion may add per document (Kubernetes manifests rarely use aliases). */
const MAX_ALIAS_NODES = 100_000;

type Positions = Record<string, SourcePosition>;

class TooLarge extends Error {}
class TooDeep extends Error {
  constructor(readonly offset: number | undefined) {
    super("too deep");
  }
}
class AliasCycle extends Error {
  constructor(
    readonly source: string,
    readonly offset: number | undefined,
  ) {
    super("alias cycle");
  }
}

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
  const fast = decodeFast(input.text, MAX_YAML_DEPTH);
  if (fast !== undefined) readFast(input, fast, objects, issues);
  else readSlow(input, objects, issues);
}

function readFast(
  input: ManifestInput,
  fast: FastDocuments,
  objects: RawObject[],
  issues: Issue[],
): void {
  const lines = new LineStarts(input.text);
  fast.values.forEach((value, k) => {
    if (value === null || value === undefined) return;
    const positions = deferred(() => documentPositions(input, fast.starts, k, lines));
    addDocument(input.file, value, positions, objects, issues);
  });
}

/**
 * The positions of document `k`, read again on the slow path from the line its top-level node
 * starts on up to the next document's: the same text gives the same positions, shifted by the
 * lines before it.
 */
function documentPositions(
  input: ManifestInput,
  starts: readonly number[],
  k: number,
  lines: LineStarts,
): Positions {
  const from = lines.lineStart(starts[k]!);
  const next = starts[k + 1];
  const to = next === undefined ? input.text.length : lines.lineStart(next);
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(input.text.slice(from, to > from ? to : undefined), {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
  });
  const shift = lines.position(from).line - 1;
  const pos = (offset: number): SourcePosition => {
    const lp = lineCounter.linePos(offset);
    return { file: input.file, line: lp.line + shift, col: lp.col };
  };
  const doc = (Array.isArray(docs) ? docs : []).find((d) => d.contents !== null);
  const positions: Positions = {};
  if (doc === undefined || doc.errors.length > 0) return positions;
  try {
    convert(doc, doc.contents, [], positions, pos, newBudget());
  } catch (e) {
    if (!(e instanceof TooLarge || e instanceof TooDeep || e instanceof AliasCycle)) throw e;
  }
  return positions;
}

function readSlow(input: ManifestInput, objects: RawObject[], issues: Issue[]): void {
  const lineCounter = new LineCounter();
  const pos = (offset: number): SourcePosition => {
    const lp = lineCounter.linePos(offset);
    return { file: input.file, line: lp.line, col: lp.col };
  };
  const deep = tooDeepAt(input.text);
  if (deep !== undefined) {
    const lp = new LineStarts(input.text).position(deep);
    issues.push(tooDeepIssue({ file: input.file, ...lp }));
    return;
  }
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    docs = parseAllDocuments(input.text, {
      lineCounter,
      uniqueKeys: true,
      prettyErrors: false,
    });
  } catch (e) {
    // Nesting the depth scan could not see (it stops at the first syntax error).
    if (!(e instanceof RangeError)) throw e;
    issues.push(tooDeepIssue({ file: input.file, line: 1, col: 1 }));
    return;
  }
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
    const positions: Positions = {};
    let value: unknown;
    try {
      value = convert(doc, doc.contents, [], positions, pos, newBudget());
    } catch (e) {
      const issue = conversionIssue(e, pos, doc.contents.range?.[0] ?? 0);
      if (issue === undefined) throw e;
      issues.push(issue);
      continue;
    }
    if (value === null || value === undefined) continue;
    addDocument(input.file, value, positions, objects, issues);
  }
}

function conversionIssue(
  e: unknown,
  pos: (offset: number) => SourcePosition,
  docOffset: number,
): Issue | undefined {
  if (e instanceof TooLarge)
    return {
      code: "yaml-syntax",
      severity: "error",
      message: "YAML document too large after alias expansion",
      source: pos(docOffset),
      path: [],
    };
  if (e instanceof TooDeep) return tooDeepIssue(pos(e.offset ?? docOffset));
  if (e instanceof AliasCycle)
    return {
      code: "yaml-syntax",
      severity: "error",
      message: `YAML alias *${e.source} refers to a node that contains it (an endless expansion)`,
      source: pos(e.offset ?? docOffset),
      path: [],
    };
  return undefined;
}

function tooDeepIssue(source: SourcePosition): Issue {
  return {
    code: "yaml-syntax",
    severity: "error",
    message: `YAML nesting deeper than ${MAX_YAML_DEPTH} levels`,
    source,
    path: [],
  };
}

/** A decoded document: not-an-object checks and `kind: List` flattening. */
function addDocument(
  file: string,
  value: unknown,
  positions: FieldPositions,
  objects: RawObject[],
  issues: Issue[],
): void {
  const docPos = (): SourcePosition => positions[""] ?? { file, line: 1, col: 1 };
  if (!isRecord(value)) {
    issues.push({
      code: "not-an-object",
      severity: "error",
      message: "document is not an object (expected a mapping with apiVersion, kind and metadata)",
      source: deferred(docPos),
      path: [],
    });
    return;
  }
  if (value["kind"] === "List" || (value["kind"] === undefined && Array.isArray(value["items"]))) {
    if (!Array.isArray(value["items"])) {
      issues.push({
        code: "invalid-type",
        severity: "error",
        message: "items: must be a list",
        source: deferred(docPos),
        path: ["items"],
      });
      return;
    }
    let perItem: Map<number, Positions> | undefined;
    const itemPositions = (i: number): Positions =>
      (perItem ??= splitItemPositions(positions)).get(i) ?? {};
    value["items"].forEach((item: unknown, i: number) => {
      if (!isRecord(item)) {
        issues.push({
          code: "not-an-object",
          severity: "error",
          message: "list item is not an object",
          source: deferred(() => positions[formatFieldPath(["items", i])] ?? docPos()),
          path: ["items", i],
        });
        return;
      }
      objects.push({ file, value: item, positions: deferred(() => itemPositions(i)) });
    });
    return;
  }
  objects.push({ file, value, positions });
}

function firstLine(s: string): string {
  return (s.split("\n")[0] ?? s).trim();
}

/** Positions of `items[i]...` keys, per item, with the `items[i]` prefix removed (one pass). */
function splitItemPositions(positions: FieldPositions): Map<number, Positions> {
  const out = new Map<number, Positions>();
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

interface Budget {
  count: number;
  /** Alias targets being expanded, to refuse one that contains its own alias. */
  readonly expanding: Set<unknown>;
  /** The document's anchored and alias nodes in order, collected at its first alias. */
  anchored?: readonly YamlNode[];
}

/**
 * The node an alias names: the last node anchored with its name before it, as `Alias.resolve`
 * finds it, but from one list per document instead of a walk of the document per alias.
 */
function aliasTarget(doc: Document, alias: Alias, budget: Budget): YamlNode | undefined {
  if (budget.anchored === undefined) {
    const nodes: YamlNode[] = [];
    visit(doc, {
      Node: (_key, node) => {
        if (isAlias(node) || node.anchor !== undefined) nodes.push(node);
      },
    });
    budget.anchored = nodes;
  }
  let found: YamlNode | undefined;
  for (const n of budget.anchored) {
    if (n === alias) break;
    if (!isAlias(n) && n.anchor === alias.source) found = n;
  }
  return found;
}

function newBudget(): Budget {
  return { count: 0, expanding: new Set() };
}

function convert(
  doc: Document,
  node: unknown,
  path: (string | number)[],
  positions: Positions | null,
  pos: (offset: number) => SourcePosition,
  budget: Budget,
): unknown {
  // Inside an alias (positions === null) fields are not recorded: they take the position of the
  // field holding the alias, and only they count against the expansion budget.
  if (positions === null && ++budget.count > MAX_ALIAS_NODES) throw new TooLarge();
  const n = node as YamlNode | null;
  // Aliases can nest deeper than the text does.
  if (path.length >= MAX_YAML_DEPTH) throw new TooDeep(n?.range?.[0]);
  if (positions !== null && n?.range) {
    const key = formatFieldPath(path);
    if (positions[key] === undefined) positions[key] = pos(n.range[0]);
  }
  if (isAlias(node)) {
    const target = aliasTarget(doc, node, budget);
    if (target === undefined) return null;
    if (budget.expanding.has(target)) throw new AliasCycle(node.source, node.range?.[0]);
    budget.expanding.add(target);
    try {
      return convert(doc, target, path, null, pos, budget);
    } finally {
      budget.expanding.delete(target);
    }
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
