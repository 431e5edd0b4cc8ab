/**
 * Progress on stderr for long work (big clusters, large matrices): shown only when stderr is a
 * terminal and `--quiet` is not given, so pipes, files and CI logs stay byte-for-byte the same.
 * One status line, rewritten in place (`\r`, erase to end of line) and erased when the work ends.
 * Any command can use it:
 *
 *   const progress = startProgress(io, opts);
 *   progress.phase("loading manifests");
 *   progress.step(i, total);          // optional counts within a phase, throttled
 *   progress.end();
 */
import type { CliIO } from "./program.js";

export interface Progress {
  /** A new phase of the work, e.g. "rendering iptables". */
  phase(label: string): void;
  /** `done` of `total` items of the current phase (redrawn at most every 100 ms). */
  step(done: number, total?: number): void;
  /** Erases the status line. */
  end(): void;
}

export interface ProgressOptions {
  readonly quiet?: boolean;
}

const SILENT: Progress = { phase: () => undefined, step: () => undefined, end: () => undefined };
const REDRAW_MS = 100;
const CLEAR = "\r\u001b[K";

export function startProgress(io: CliIO, opts: ProgressOptions, now = Date.now): Progress {
  if (opts.quiet === true || io.stderrIsTTY !== true) return SILENT;
  let label = "";
  let shown = false;
  let last = 0;
  const draw = (text: string): void => {
    io.stderr(`${CLEAR}${text}`);
    shown = true;
  };
  return {
    phase(l) {
      label = l;
      last = now();
      draw(`${label}…`);
    },
    step(done, total) {
      const t = now();
      if (t - last < REDRAW_MS && done !== total) return;
      last = t;
      draw(total === undefined ? `${label}… ${done}` : `${label}… ${done}/${total}`);
    },
    end() {
      if (shown) io.stderr(CLEAR);
      shown = false;
    },
  };
}
