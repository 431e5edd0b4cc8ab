/**
 * Runs one whole command as a user would and measures it: wall time, CPU time (user + system:
 * comparable on a busy machine, where wall time is not) and peak RSS, all from GNU time.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export interface Run {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly status: number | null;
  readonly stderr: string;
}

const GNU_TIME = "/usr/bin/time";

export function gnuTimeMissing(): string | undefined {
  return existsSync(GNU_TIME) ? undefined : `${GNU_TIME} not found (apt-get install time)`;
}

/** `argv` under GNU time; stdout goes to `stdoutFile` (or is dropped). */
export function measure(argv: readonly string[], stdoutFile?: string): Run {
  const marker = "@@bench ";
  const cmd = `${GNU_TIME} -f '${marker}%e %U %S %M' "$@" > ${stdoutFile ?? "/dev/null"}`;
  const r = spawnSync("bash", ["-c", cmd, "bash", ...argv], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  const lines = r.stderr.split("\n");
  const last = [...lines].reverse().find((l) => l.startsWith(marker)) ?? "";
  const [wall, user, sys, rssKb] = last.slice(marker.length).split(" ").map(Number);
  return {
    wallMs: (wall ?? NaN) * 1000,
    cpuMs: ((user ?? NaN) + (sys ?? NaN)) * 1000,
    peakRssMb: (rssKb ?? NaN) / 1024,
    // GNU time reports the command's own exit status in its own.
    status: r.status,
    stderr: lines.filter((l) => !l.startsWith(marker)).join("\n"),
  };
}

/** The run with the median CPU time of `n` runs. */
export function medianOf(n: number, run: () => Run): Run {
  const runs = Array.from({ length: n }, run).sort((a, b) => a.cpuMs - b.cpuMs);
  return runs[Math.floor(runs.length / 2)]!;
}

/** The CLI entry as a user runs it after `npm run build`. */
export function cliArgv(root: string): string[] {
  // The built CLI itself: bin/kube-netsim.js in a clone runs the sources through tsx instead.
  const main = `${root}/dist/esm/cli/main.js`;
  if (!existsSync(main))
    throw new Error(
      "dist/ is missing: run `npm run build` first (the benchmark runs the built CLI)",
    );
  return [process.execPath, main];
}
