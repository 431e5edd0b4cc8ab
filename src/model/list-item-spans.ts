/**
 * Where each item of a `kind: List` document lies in its text, so that the positions of one item
 * can be read from that item's text alone. A List is usually one large document (`kubectl get
 * -o yaml|json` writes every object into one), and reading all of it again on the `yaml` path to
 * place one problem took about 40 s and 2 GB on a 10,000-Service List. Two layouts are found, as
 * kubectl writes them: JSON (`{"items": [{…}, …]}`) and block YAML (`items:` at the start of a
 * line, its entries `- ` lines at one indentation). Anything else gives undefined, and the caller
 * reads the whole document as before; the caller also checks each item read alone against the
 * item decoded, so a span found wrongly costs time, never a wrong position.
 */
import { isRecord } from "../util/plain.js";
import { isJsonBlank } from "./json-fast.js";

/**
 * One item: `text.slice(start, end)`. A block entry's span starts at its line's start, and `dash`
 * is where its `-` stands: read alone with the `-` as a space, the item is a mapping at the
 * indentation it has in the List, at the same offsets.
 */
export interface ItemSpan {
  readonly start: number;
  readonly end: number;
  readonly dash?: number;
}

export interface ListItemSpans {
  readonly layout: "json" | "block";
  readonly items: readonly ItemSpan[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The offset after the JSON string opening at `i` (a `"`). */
function afterString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  return text.length;
}

/**
 * The items of the JSON object in `text[from, to)`: the elements of the array its top-level key
 * `"items"` holds.
 */
function jsonItems(text: string, from: number, to: number): ItemSpan[] | undefined {
  let depth = 0;
  let items: ItemSpan[] | undefined;
  let itemStart = -1;
  let lastEnd = -1;
  // Set after the top-level key "items" and its colon, until its value opens.
  let awaitingItems = false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = afterString(text, i);
      if (depth === 1 && items === undefined && text.slice(i, end) === '"items"') {
        let j = end;
        while (j < to && isJsonBlank(text.charCodeAt(j))) j++;
        awaitingItems = text.charCodeAt(j) === 0x3a; // :
        i = j;
        continue;
      }
      if (depth === 2 && items !== undefined && itemStart === -1) itemStart = i;
      if (depth >= 2) lastEnd = end;
      i = end - 1;
      continue;
    }
    if (isJsonBlank(c)) continue;
    if (c === 0x7b || c === 0x5b) {
      // { [
      if (depth === 1 && awaitingItems) {
        awaitingItems = false;
        if (c !== 0x5b) return undefined;
        items = [];
        depth++;
        continue;
      }
      if (depth === 2 && items !== undefined && itemStart === -1) itemStart = i;
      depth++;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      // } ]
      depth--;
      if (depth >= 2) lastEnd = i + 1;
      if (depth === 1 && items !== undefined && itemStart !== -1) {
        items.push({ start: itemStart, end: lastEnd });
        return items;
      }
      if (depth === 1 && items !== undefined) return items; // []
      continue;
    }
    if (c === 0x2c && depth === 2 && items !== undefined) {
      // , between items
      if (itemStart === -1) return undefined;
      items.push({ start: itemStart, end: lastEnd });
      itemStart = -1;
      continue;
    }
    if (depth === 1 && awaitingItems) return undefined; // "items": null, a number, …
    if (depth === 2 && items !== undefined && itemStart === -1) itemStart = i;
    if (depth >= 2) lastEnd = i + 1;
  }
  return undefined;
}

/** The start of the line after the one `i` is on (or `to`). */
function nextLine(text: string, i: number, to: number): number {
  const lf = text.indexOf("\n", i);
  return lf === -1 || lf >= to ? to : lf + 1;
}

/**
 * The entries of the block sequence under a top-level `items:` key (at the start of a line) in
 * `text[from, to)`: each from its `-` to the line where the next entry, or the first line
 * indented less than or as much as the sequence and not an entry of it, starts. Blank lines and
 * comment lines at the end of an entry stay in it (they change no position).
 */
function blockItems(text: string, from: number, to: number): ItemSpan[] | undefined {
  let line = from;
  while (line < to && !/^items:[ \t]*(#.*)?\r?$/.test(lineText(text, line, to))) {
    line = nextLine(text, line, to);
  }
  if (line >= to) return undefined;
  line = nextLine(text, line, to);
  const items: ItemSpan[] = [];
  let indent = -1;
  let start = -1;
  const add = (end: number) => items.push({ start, end, dash: start + indent });
  for (; line < to; line = nextLine(text, line, to)) {
    const t = lineText(text, line, to);
    const trimmed = t.trimStart();
    if (trimmed === "" || trimmed === "\r" || trimmed.startsWith("#")) continue;
    const spaces = t.length - trimmed.length;
    const entry = trimmed.startsWith("- ") || trimmed === "-" || trimmed === "-\r";
    if (indent === -1) {
      if (!entry) return undefined;
      indent = spaces;
    }
    if (entry && spaces === indent) {
      if (start !== -1) add(line);
      start = line;
      continue;
    }
    if (spaces <= indent) break;
  }
  if (start !== -1) add(line);
  return items;
}

function lineText(text: string, line: number, to: number): string {
  const lf = text.indexOf("\n", line);
  return text.slice(line, lf === -1 || lf >= to ? to : lf);
}

/** The items of the List document in `text[from, to)`, or undefined for another layout. */
export function listItemSpans(text: string, from: number, to: number): ListItemSpans | undefined {
  let i = from;
  while (i < to && isJsonBlank(text.charCodeAt(i))) i++;
  if (text.startsWith("---", i)) {
    i += 3;
    while (i < to && isJsonBlank(text.charCodeAt(i))) i++;
  }
  if (text.charCodeAt(i) === 0x7b) {
    const items = jsonItems(text, i, to);
    return items === undefined ? undefined : { layout: "json", items };
  }
  const items = blockItems(text, from, to);
  return items === undefined ? undefined : { layout: "block", items };
}

/**
 * Whether `read` (an item read alone) is `item`: the same apiVersion, kind, name and namespace
 * (the loader's defaulting may since have changed the item's other fields, a field it found
 * invalid included, and adds the namespace `default` where there was none). With the item
 * count equal to the List's, this catches a span found at the wrong place.
 */
export function sameObject(read: unknown, item: unknown): boolean {
  if (!isRecord(read) || !isRecord(item)) return false;
  if (read["apiVersion"] !== item["apiVersion"] || read["kind"] !== item["kind"]) return false;
  const a = read["metadata"];
  const b = item["metadata"];
  if (!isRecord(a) || !isRecord(b)) return a === b;
  return (
    a["name"] === b["name"] && (a["namespace"] === undefined || a["namespace"] === b["namespace"])
  );
}
