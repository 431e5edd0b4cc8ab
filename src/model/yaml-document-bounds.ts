/**
 * Where the documents of a YAML stream start: at the text's start and at each line that starts
 * with the document marker `---` followed by a blank or the line end (YAML 1.2.2 §9.1.3, §9.2).
 * Each document can then be read on its own (yaml-subset.ts), and one the fast reader declines
 * costs only its own re-read. A stream that uses directives (`%`, §6.8), document end markers
 * (`...`, §9.1.4) or a byte-order mark (§5.2) is not split: its documents may depend on one
 * another's text, and the whole stream is left to the general parsers.
 *
 * The text is a string or its UTF-8 bytes (a Buffer: the subset reader reads bytes); offsets are
 * in the same units. The markers are ASCII, so both split a text at the same markers.
 */

/** A text, or its UTF-8 bytes. */
type Text = string | Buffer;

/** Offsets where each document's text starts (the first is 0), or undefined (see above). */
export function documentStarts(text: Text): number[] | undefined {
  if (startsWithBom(text) || startsLine(text, "%") || startsMarker(text, "...")) return undefined;
  if (typeof text !== "string") return byteDocumentStarts(text);
  const starts = [0];
  for (let i = text.indexOf("\n---"); i !== -1; i = text.indexOf("\n---", i + 4))
    if (isMarkerEnd(text, i + 4)) starts.push(i + 1);
  return starts;
}

/** The marker after a line break, as bytes: Node then need not encode the needle at each call. */
const MARKER_LINE = Buffer.from("\n---", "latin1");

/** documentStarts' split of bytes. */
function byteDocumentStarts(b: Buffer): number[] {
  const starts = [0];
  for (let i = b.indexOf(MARKER_LINE); i !== -1; i = b.indexOf(MARKER_LINE, i + 4))
    if (isMarkerEnd(b, i + 4)) starts.push(i + 1);
  return starts;
}

function codeAt(text: Text, i: number): number {
  return typeof text === "string" ? text.charCodeAt(i) : text[i]!;
}

function startsWithBom(text: Text): boolean {
  if (typeof text === "string") return text.charCodeAt(0) === 0xfeff;
  return text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf;
}

/** Whether `text` starts with the ASCII `prefix`. */
function startsWith(text: Text, prefix: string): boolean {
  if (text.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++)
    if (codeAt(text, i) !== prefix.charCodeAt(i)) return false;
  return true;
}

/** Whether a line of `text` starts with `prefix`. */
function startsLine(text: Text, prefix: string): boolean {
  return startsWith(text, prefix) || text.includes(`\n${prefix}`);
}

/** Whether a line of `text` is the marker `marker` (then a blank or the line end). */
function startsMarker(text: Text, marker: string): boolean {
  if (startsWith(text, marker) && isMarkerEnd(text, marker.length)) return true;
  for (let i = text.indexOf(`\n${marker}`); i !== -1; i = text.indexOf(`\n${marker}`, i + 1))
    if (isMarkerEnd(text, i + 1 + marker.length)) return true;
  return false;
}

/** After a marker: a blank, a line break, or the end of the text. */
function isMarkerEnd(text: Text, i: number): boolean {
  if (i >= text.length) return true;
  const c = codeAt(text, i);
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}
