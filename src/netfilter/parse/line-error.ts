/**
 * A problem with the line being read. Thrown by the pieces that read one line (a table's
 * commands, a chain declaration) and caught by the reader, which records it as an issue at that
 * line and goes on with the next (iptables-restore names the first; we name them all).
 */
export class LineError extends Error {}

export function fail(message: string): never {
  throw new LineError(message);
}
