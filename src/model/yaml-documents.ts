/**
 * Turns manifest text (multi-document YAML, or JSON, which is YAML) into plain objects with the
 * position of every field. `kind: List` is flattened into its items. YAML 1.2 core schema, the
 * same scalars JSON has.
 *
 * Three paths give the same objects. A file is split into its documents, and each is read by
 * the subset reader (yaml-subset.ts), or where it declines, by js-yaml (yaml-fast.ts), or where
 * that declines too, by the `yaml` path on that document alone. A document with a syntax error
 * is read on the `yaml` path with the documents its error runs into (troubledDocuments), which
 * reports it as the whole file's reading does; one nesting too deep sends the whole file down the
 * whole-file paths (js-yaml, then `yaml`), which report it as they always did. The fast paths compute no position: each
 * document's positions are computed when first read (see deferred.ts), by reading that
 * document again on the `yaml` path. The `yaml` path walks the `yaml` AST by hand rather than
 * with `toJS()`, recording each value's position as it is built. Aliases are resolved with
 * a size budget so a "billion laughs" document is an error, not a hang, and an alias inside the
 * node it names is an error, not an endless expansion. Nesting deeper than MAX_YAML_DEPTH is
 * refused before anything is built. */
import { isAscii } from "node:buffer";
import {
  Composer,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseAllDocuments,
  Parser,
  visit,
  type Alias,
  type Document,
  type Node as YamlNode,
  type CST,
} from "yaml";
type Token = CST.Token;
import { deferred, deferredCall } from "./deferred.js";
import { formatFieldPath, type Issue, type SourcePosition } from "./issue.js";
import type { FieldPositions } from "./field-positions.js";
import { LineStarts } from "./line-starts.js";
import { MAX_YAML_DEPTH, tooDeepAt } from "./yaml-depth.js";
import { documentStarts } from "./yaml-document-bounds.js";
import { listItemSpans, sameObject, type ItemSpan } from "./list-item-spans.js";
import { decodeFast, type FastDocuments } from "./yaml-fast.js";
import { StringCache } from "./yaml-string-cache.js";
import { DECLINED, readSubsetDocument } from "./yaml-subset.js";
import { assertNever } from "../util/assert-never.js";
import { isRecord, type PlainRecord } from "../util/plain.js";

export interface ManifestInput {
  readonly file: string;
  readonly text: string;
  /**
   * The text's UTF-8 bytes, when the caller has them (a file as read): the subset reader reads
   * them as they are, and `text` (which may then be a getter that decodes them on first use) is
   * read only where a document needs another path or a position.
   */
  readonly bytes?: Uint8Array;
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

/** The objects of some manifest texts and the problems found decoding them. */
export interface ReadManifests {
  readonly objects: RawObject[];
  readonly issues: Issue[];
}

/**
 * Which decoders may read a text: "fast" (the default) tries the fast ones first; "yaml" reads
 * everything on the `yaml` path, the reference the fast ones are tested against.
 */
export type Decoders = "fast" | "yaml";

export function readManifests(
  inputs: readonly ManifestInput[],
  decoders: Decoders = "fast",
): ReadManifests {
  const objects: RawObject[] = [];
  const issues: Issue[] = [];
  const sink: ObjectSink = { add: (o) => objects.push(o) };
  for (const input of inputs) {
    if (decoders === "yaml") {
      readYaml(input, sink, issues);
      continue;
    }
    const before = { objects: objects.length, issues: issues.length };
    const how = readOne(input, sink, issues);
    if (how !== "read") {
      // Read whole after all: what its documents gave goes.
      objects.length = before.objects;
      issues.length = before.issues;
      readWhole(input, how, sink, issues);
    }
  }
  return { objects, issues };
}

/** Where decoded objects go, in the order of the input, each once it is final. */
export interface ObjectSink {
  add(o: RawObject): void;
}

/**
 * readManifests' "fast" reading, each object handed to `sink` as soon as its document is known
 * to be read as the whole file's reading reads it (the next document was read too), so that it
 * can be loaded while it is still in the processor's caches. The problems found decoding are
 * returned, in readManifests' order; or undefined where a file had to be read whole (its
 * documents cannot be read one by one after all) after some of its objects went to `sink`:
 * the caller then reads everything again with readManifests.
 */
export function streamManifests(
  inputs: readonly ManifestInput[],
  sink: ObjectSink,
): Issue[] | undefined {
  const issues: Issue[] = [];
  for (const input of inputs) {
    const before = issues.length;
    let handed = false;
    const counted: ObjectSink = {
      add: (o) => {
        handed = true;
        sink.add(o);
      },
    };
    const how = readOne(input, counted, issues);
    if (how === "read") continue;
    if (handed) return undefined;
    issues.length = before;
    readWhole(input, how, sink, issues);
  }
  return issues;
}

/**
 * A file read document by document ("read"), or how it must be read whole instead (the caller
 * undoes what its documents gave, then calls readWhole).
 */
function readOne(input: ManifestInput, sink: ObjectSink, issues: Issue[]): EachDocument {
  return readEachDocument(input, (d) => {
    if ("issue" in d) issues.push(d.issue);
    else addDocument(input.file, d, sink, issues);
  });
}

/** A file that cannot be read document by document (see readEachDocument). */
function readWhole(
  input: ManifestInput,
  how: Exclude<EachDocument, "read">,
  sink: ObjectSink,
  issues: Issue[],
): void {
  switch (how) {
    case "whole-file":
      readWholeFile(input, sink, issues);
      return;
    case "report":
      // js-yaml would decline (it is tested to decline whatever `yaml` reports): skip it.
      readYaml(input, sink, issues);
      return;
    default:
      assertNever(how);
  }
}

/**
 * A decoded document's value (never null) and its field positions. A fast path also says where
 * the document lies (the k-th of `spans`), so that a List's items can be placed one by one.
 */
interface DecodedDocument {
  readonly value: unknown;
  readonly positions: FieldPositions;
  readonly spans?: DocumentSpans;
  readonly k?: number;
}

/** A problem the `yaml` path reports, in its place among the documents. */
interface DocumentIssue {
  readonly issue: Issue;
}

/**
 * How a file was read document by document: "read" (its documents and the problems of those
 * with syntax errors, troubledDocuments, went to the caller as they were read); or
 * "whole-file" where it cannot be split (yaml-document-bounds.ts) or a document holds more than
 * one for js-yaml; or "report" where a document nests too deep, which the `yaml` path reads the
 * whole file for, to report it exactly as it always has.
 */
type EachDocument = "read" | "whole-file" | "report";

/** What readDeclinedDocument gives. */
type DeclinedDocument =
  | { readonly kind: "read"; readonly documents: (DecodedDocument | DocumentIssue)[] }
  | { readonly kind: "whole-file" }
  | { readonly kind: "report" };

/**
 * The documents of a file, each read on its own: by the subset reader (yaml-subset.ts), or,
 * where it declines, by the whole-file paths run on that document's text alone. Each goes to
 * `emit` once it is final: when the next document is read without a syntax error (an error may
 * send the one before it to be read again with it, see below), or at the end.
 */
function readEachDocument(
  input: ManifestInput,
  emit: (d: DecodedDocument | DocumentIssue) => void,
): EachDocument {
  const source = subsetSource(input);
  if (source === undefined) return "whole-file";
  const { bytes, byteStarts, starts } = source;
  // An ASCII file's positions are counted in its bytes: it is never decoded whole (on the
  // 10,000-Service file, decoding it and a search per line for one error's position were
  // ~0.2 s of CPU).
  const asciiBytes = source.ascii ? bytes : undefined;
  const lines = new LineStarts(asciiBytes ?? (() => input.text));
  const strings = new StringCache(bytes);
  const spans: DocumentSpans = { input, starts, lines, length: source.length, asciiBytes };
  // Read, not yet emitted: the previous document's items at most (and then `previousAt` is 0).
  const out: (DecodedDocument | DocumentIssue)[] = [];
  // Where the previous document's items start in `out`, when a fast path read it (not part of a
  // troubled read, which ended with it).
  let previousAt: number | undefined;
  for (let k = 0; k < starts.length; k++) {
    // What came before the previous document is final.
    const final = previousAt ?? out.length;
    if (final > 0) {
      for (let i = 0; i < final; i++) emit(out[i]!);
      out.splice(0, final);
      if (previousAt !== undefined) previousAt = 0;
    }
    const at = out.length;
    const value = readSubsetDocument(
      bytes,
      byteStarts[k]!,
      byteStarts[k + 1] ?? bytes.length,
      strings,
    );
    if (value === DECLINED) {
      const declined = readDeclinedDocument(input, starts[k]!, spanEnd(spans, k), lines);
      if (declined.kind === "whole-file") return "whole-file";
      if (declined.kind === "read") {
        out.push(...declined.documents);
        previousAt = at;
        continue;
      }
      // The parser may report an error at the start of this document before the document
      // itself, and the composer gives it to the document before: read that one again too.
      const first = previousAt !== undefined ? k - 1 : k;
      if (previousAt !== undefined) out.length = previousAt;
      const troubled = troubledDocuments(spans, first, k);
      if (troubled === undefined) return "report";
      out.push(...troubled.items);
      k = troubled.next - 1;
      previousAt = undefined;
    } else {
      if (value !== null)
        out.push({ value, positions: deferredCall(spanPositions, spans, k), spans, k });
      previousAt = at;
    }
  }
  for (const d of out) emit(d);
  return "read";
}

/**
 * What the subset reader reads of a file: UTF-8 bytes with LF line breaks, split into documents
 * (`byteStarts`), and where the same documents start in the text (`starts`, of `length`
 * characters), which positions and the other paths use. A file read as ASCII bytes without a
 * carriage return is read as it is, without decoding it (the two kinds of offset are then the
 * same); any other is decoded (or given as a string) and encoded again. Undefined where the file
 * cannot be split (yaml-document-bounds.ts).
 */
interface SubsetSource {
  readonly bytes: Buffer;
  readonly byteStarts: readonly number[];
  readonly starts: readonly number[];
  readonly length: number;
  /** Whether `bytes` are the text itself (ASCII without a carriage return). */
  readonly ascii: boolean;
}

function subsetSource(input: ManifestInput): SubsetSource | undefined {
  const given = input.bytes === undefined ? undefined : asBuffer(input.bytes);
  if (given !== undefined && isAscii(given) && !given.includes(CR)) {
    const starts = documentStarts(given);
    if (starts === undefined) return undefined;
    return { bytes: given, byteStarts: starts, starts, length: given.length, ascii: true };
  }
  const text = input.text;
  const starts = documentStarts(text);
  if (starts === undefined) return undefined;
  // CR LF is one line break, as LF is (YAML 1.2.2 §5.4): the subset reader reads a copy with LF
  // only; positions and declined documents use the text as written. Both split alike.
  const lf = text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
  const bytes = lf === text && given !== undefined ? given : Buffer.from(lf, "utf8");
  const byteStarts = documentStarts(bytes);
  if (byteStarts?.length !== starts.length) return undefined;
  return { bytes, byteStarts, starts, length: text.length, ascii: false };
}

const CR = 0x0d;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** A file split into documents (the k-th is `input.text[starts[k], starts[k + 1])`). */
interface DocumentSpans {
  readonly input: ManifestInput;
  readonly starts: readonly number[];
  readonly lines: LineStarts;
  /** The text's length. */
  readonly length: number;
  /** The text's bytes, when they are the text (SubsetSource's `ascii`). */
  readonly asciiBytes: Buffer | undefined;
}

function spanEnd(spans: DocumentSpans, k: number): number {
  return spans.starts[k + 1] ?? spans.length;
}

/** The positions of the k-th document (what a deferredCall keeps: no closure per document). */
function spanPositions(spans: DocumentSpans, k: number): Positions {
  return documentPositions(
    spans.input,
    spans.starts[k]!,
    spanEnd(spans, k),
    spans.lines,
    spans.asciiBytes,
  );
}

/**
 * The documents from the `first`-th (the k-th, which has a syntax error, or the one before it)
 * read on the `yaml` path as the whole file's reading reads them: from that document's start
 * (the documents before it ended at their markers, having no error, so the parser starts it
 * afresh there as in the whole file) on through the rest of the file, stopping after the last
 * document before a split point after the k-th (documentStarts) where the parser starts a
 * document. Where that is is the parser's to say: a construct left open may run over later
 * markers (a quoted scalar can, to the end of the file). `next` is that split point's index.
 * Undefined when the `yaml` path would report nesting too deep (it reads nothing else of the
 * file then).
 */
function troubledDocuments(
  spans: DocumentSpans,
  first: number,
  k: number,
): { items: (DecodedDocument | DocumentIssue)[]; next: number } | undefined {
  const { input, starts, lines } = spans;
  const from = starts[first]!;
  // The parser's document starts come in increasing order: one pass over the split points.
  let j = k + 1;
  const splitAt = (offset: number): number | undefined => {
    while (j < starts.length && starts[j]! < from + offset) j++;
    return starts[j] === from + offset ? j : undefined;
  };
  const items: (DecodedDocument | DocumentIssue)[] = [];
  const read = readSlowDocuments(
    input.file,
    input.text.slice(from),
    { lines, from },
    { document: (d) => items.push(d), issue: (issue) => items.push({ issue }) },
    splitAt,
  );
  if (read.tooDeep) return undefined;
  return { items, next: read.stoppedAt ?? starts.length };
}

/** One document's text (`input.text[from, to)`) on js-yaml, else on `yaml`. */
function readDeclinedDocument(
  input: ManifestInput,
  from: number,
  to: number,
  lines: LineStarts,
): DeclinedDocument {
  const text = input.text.slice(from, to);
  const fast = decodeFast(text, MAX_YAML_DEPTH);
  if (fast !== undefined) {
    const values = fast.values.filter((v) => v !== null && v !== undefined);
    if (values.length > 1) return { kind: "whole-file" };
    const spans: DocumentSpans = {
      input,
      starts: [from],
      lines,
      length: to,
      asciiBytes: undefined,
    };
    const documents = values.map((value) => ({
      value,
      positions: deferredCall(spanPositions, spans, 0),
      spans,
      k: 0,
    }));
    return { kind: "read", documents };
  }
  const documents: DecodedDocument[] = [];
  let troubled = false;
  readSlowDocuments(
    input.file,
    text,
    { lines, from },
    { document: (d) => documents.push(d), issue: () => (troubled = true) },
  );
  return troubled ? { kind: "report" } : { kind: "read", documents };
}

/** The whole file at once: js-yaml without positions, or `yaml` with them. */
function readWholeFile(input: ManifestInput, sink: ObjectSink, issues: Issue[]): void {
  const fast = decodeFast(input.text, MAX_YAML_DEPTH);
  if (fast !== undefined) readFast(input, fast, sink, issues);
  else readYaml(input, sink, issues);
}

/** The whole file on the `yaml` path. */
function readYaml(input: ManifestInput, sink: ObjectSink, issues: Issue[]): void {
  readSlowDocuments(
    input.file,
    input.text,
    { lines: new LineStarts(input.text), from: 0 },
    {
      document: (d) => addDocument(input.file, d, sink, issues),
      issue: (i) => issues.push(i),
    },
  );
}

function readFast(
  input: ManifestInput,
  fast: FastDocuments,
  sink: ObjectSink,
  issues: Issue[],
): void {
  const lines = new LineStarts(input.text);
  // Each document from the line its top-level node starts on up to the next document's.
  const spans: DocumentSpans = {
    input,
    starts: fast.starts.map((start) => lines.lineStart(start)),
    lines,
    length: input.text.length,
    asciiBytes: undefined,
  };
  fast.values.forEach((value, k) => {
    if (value === null || value === undefined) return;
    const positions = deferredCall(spanPositions, spans, k);
    addDocument(input.file, { value, positions, spans, k }, sink, issues);
  });
}

/**
 * The positions of the document in `input.text[from, to)` (from a line start), read again on
 * the slow path: the same text gives the same positions, shifted by the lines before it. With
 * `asciiBytes` (the text's bytes, which are the text), the document's text is made from them.
 */
function documentPositions(
  input: ManifestInput,
  from: number,
  to: number,
  lines: LineStarts,
  asciiBytes?: Buffer,
): Positions {
  const text =
    asciiBytes === undefined
      ? input.text.slice(from, to > from ? to : undefined)
      : asciiBytes.toString("latin1", from, to > from ? to : asciiBytes.length);
  const docs = parseAllDocuments(text, {
    uniqueKeys: true,
    prettyErrors: false,
  });
  const pos = (offset: number): SourcePosition => ({
    file: input.file,
    ...lines.position(from + offset),
  });
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

/** What the `yaml` path finds, in the order of the text. */
interface SlowSink {
  document(d: DecodedDocument): void;
  issue(i: Issue): void;
}

/** Where a text read on the `yaml` path lies in its file: its offset and the file's lines. */
interface TextAt {
  readonly lines: LineStarts;
  readonly from: number;
}

/**
 * What the `yaml` path read: `tooDeep` when it refused the text for its nesting (one issue, and
 * nothing else read); `stoppedAt` where `stopAt` stopped it.
 */
interface SlowRead {
  readonly tooDeep: boolean;
  readonly stoppedAt?: number;
}

/**
 * The `yaml` path: every document of `text` (the file's from `at.from` on) with its positions,
 * and the problems found. With `stopAt`, it stops after a document when the next one starts
 * where `stopAt` gives a value for (an offset in `text`); the parser and composer run lazily, so
 * the text after it is not read. Positions come from the file's own line starts: yaml's
 * LineCounter misses a line break the lexer skips while recovering from some syntax errors (an
 * alias used as a key), which shifted every position after it by a line.
 */
function readSlowDocuments(
  file: string,
  text: string,
  at: TextAt,
  sink: SlowSink,
  stopAt?: (offset: number) => number | undefined,
): SlowRead {
  const pos = (offset: number): SourcePosition => ({
    file,
    ...at.lines.position(at.from + offset),
  });
  const deep = tooDeepAt(text);
  if (deep !== undefined) {
    sink.issue(tooDeepIssue(pos(deep)));
    return { tooDeep: true };
  }
  // parseAllDocuments, one document at a time. The composer hands a document over when the next
  // one's syntax tree arrives (or at the end): `following` is then where that next one starts.
  let following: number | undefined;
  const tokens = function* (source: Iterable<Token>): Generator<Token> {
    for (const token of source) {
      if (token.type === "document") following = token.offset;
      yield token;
    }
    following = undefined;
  };
  const composer = new Composer({ uniqueKeys: true, prettyErrors: false });
  try {
    for (const doc of composer.compose(tokens(new Parser().parse(text)))) {
      readSlowDocument(doc, pos, sink);
      const stoppedAt = following !== undefined ? stopAt?.(following) : undefined;
      if (stoppedAt !== undefined) return { tooDeep: false, stoppedAt };
    }
  } catch (e) {
    // Nesting the depth scan could not see (it stops at the first syntax error).
    if (!(e instanceof RangeError)) throw e;
    sink.issue(tooDeepIssue(pos(0)));
    return { tooDeep: true };
  }
  return { tooDeep: false };
}

/** One document the `yaml` path composed: its syntax errors, or its value and positions. */
function readSlowDocument(
  doc: Document.Parsed,
  pos: (offset: number) => SourcePosition,
  sink: SlowSink,
): void {
  if (doc.errors.length > 0) {
    for (const err of doc.errors)
      sink.issue({
        code: "yaml-syntax",
        severity: "error",
        message: `YAML syntax error: ${firstLine(err.message)}`,
        source: pos(err.pos[0]),
        path: [],
      });
    return;
  }
  if (doc.contents === null) return; // empty document (`---` alone, or comments only)
  const positions: Positions = {};
  let value: unknown;
  try {
    value = convert(doc, doc.contents, [], positions, pos, newBudget());
  } catch (e) {
    const issue = conversionIssue(e, pos, doc.contents.range?.[0] ?? 0);
    if (issue === undefined) throw e;
    sink.issue(issue);
    return;
  }
  if (value === null || value === undefined) return;
  sink.document({ value, positions });
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
  document: DecodedDocument,
  sink: ObjectSink,
  issues: Issue[],
): void {
  const { value, positions } = document;
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
    const itemPositions = listItemPositions(document, value["items"] as unknown[]);
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
      sink.add({ file, value: item, positions: deferred(() => itemPositions(i)) });
    });
    return;
  }
  sink.add({ file, value, positions });
}

function firstLine(s: string): string {
  return (s.split("\n")[0] ?? s).trim();
}

/**
 * The positions of a List's items, item by item. Where the fast path says where the document
 * lies and its items can be found in its text (list-item-spans.ts), an item is read again on the
 * `yaml` path alone; where not, or where that reading does not give the item decoded (a span
 * found wrongly), the whole document is read again once, as for any other document.
 */
function listItemPositions(
  document: DecodedDocument,
  items: readonly unknown[],
): (i: number) => Positions {
  let perItem: Map<number, Positions> | undefined;
  const whole = (i: number): Positions =>
    (perItem ??= splitItemPositions(document.positions)).get(i) ?? {};
  const { spans, k } = document;
  if (spans === undefined || k === undefined) return whole;
  // The List's text, and its items' spans in it: found at the first item's need.
  let list: { text: string; items: readonly ItemSpan[] } | undefined | null = null;
  return (i) => {
    if (list === null) {
      const from = spans.starts[k]!;
      const to = spanEnd(spans, k);
      const text =
        spans.asciiBytes === undefined
          ? spans.input.text.slice(from, to)
          : spans.asciiBytes.toString("latin1", from, to);
      const found = listItemSpans(text, 0, text.length);
      list = found?.items.length === items.length ? { text, items: found.items } : undefined;
    }
    const span = list?.items[i];
    if (list === undefined || span === undefined) return whole(i);
    return itemAlone(spans, spans.starts[k]!, list.text, span, items[i]) ?? whole(i);
  };
}

/**
 * The positions of one List item (`span` of the List's `text`, which starts at `from` in the
 * file) read alone, or undefined where that gives another object than the item
 * (list-item-spans.ts, sameObject).
 */
function itemAlone(
  spans: DocumentSpans,
  from: number,
  listText: string,
  span: ItemSpan,
  item: unknown,
): Positions | undefined {
  let text = listText.slice(span.start, span.end);
  if (span.dash !== undefined) {
    const at = span.dash - span.start;
    text = `${text.slice(0, at)} ${text.slice(at + 1)}`;
  }
  const docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false });
  const parsed = Array.isArray(docs) ? docs : [];
  if (parsed.length !== 1) return undefined;
  const doc = parsed[0]!;
  if (doc.errors.length > 0 || doc.contents === null) return undefined;
  const pos = (offset: number): SourcePosition => ({
    file: spans.input.file,
    ...spans.lines.position(from + span.start + offset),
  });
  const positions: Positions = {};
  try {
    const value = convert(doc, doc.contents, [], positions, pos, newBudget());
    return sameObject(value, item) ? positions : undefined;
  } catch (e) {
    if (!(e instanceof TooLarge || e instanceof TooDeep || e instanceof AliasCycle)) throw e;
    return undefined;
  }
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
