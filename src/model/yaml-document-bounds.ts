/**
 * Where the documents of a YAML stream start: at the text's start and at each line that starts
 * with the document marker `---` followed by a blank or the line end (YAML 1.2.2 §9.1.3, §9.2).
 * Each document can then be read on its own (yaml-subset.ts), and one the fast reader declines
 * costs only its own re-read. A stream that uses directives (`%`, §6.8), document end markers
 * (`...`, §9.1.4) or a byte-order mark (§5.2) is not split: its documents may depend on one
 * another's text, and the whole stream is left to the general parsers.
 */

/** Offsets where each document's text starts (the first is 0), or undefined (see above). */
export function documentStarts(text: string): number[] | undefined {
  if (text.charCodeAt(0) === 0xfeff || startsLine(text, "%") || startsMarker(text, "..."))
    return undefined;
  const starts = [0];
  for (let i = text.indexOf("\n---"); i !== -1; i = text.indexOf("\n---", i + 4))
    if (isMarkerEnd(text, i + 4)) starts.push(i + 1);
  return starts;
}

/** Whether a line of `text` starts with `prefix`. */
function startsLine(text: string, prefix: string): boolean {
  return text.startsWith(prefix) || text.includes(`\n${prefix}`);
}

/** Whether a line of `text` is the marker `marker` (then a blank or the line end). */
function startsMarker(text: string, marker: string): boolean {
  if (text.startsWith(marker) && isMarkerEnd(text, marker.length)) return true;
  for (let i = text.indexOf(`\n${marker}`); i !== -1; i = text.indexOf(`\n${marker}`, i + 1))
    if (isMarkerEnd(text, i + 1 + marker.length)) return true;
  return false;
}

/** After a marker: a blank, a line break, or the end of the text. */
function isMarkerEnd(text: string, i: number): boolean {
  if (i >= text.length) return true;
  const c = text.charCodeAt(i);
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}
