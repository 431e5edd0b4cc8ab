/**
 * Tests that need a program on the machine (tmux for the terminal test). They run wherever the
 * program is installed; elsewhere they are skipped with the reason in the name, except under
 * CI=true, where .ci/run installs it, so its absence is a failure.
 */
import { test } from "@jest/globals";
import { spawnSync } from "node:child_process";

export function toolMissing(tool: string): string | undefined {
  const r = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" });
  return r.status === 0 ? undefined : `${tool} is not installed`;
}

export function toolTest(
  name: string,
  tool: string,
  fn: () => Promise<void>,
  timeoutMs = 120_000,
): void {
  const reason = toolMissing(tool);
  if (reason === undefined) {
    test(name, fn, timeoutMs);
    return;
  }
  if (process.env.CI === "true") {
    test(name, () => {
      throw new Error(`${name}: must run in CI but cannot: ${reason}`);
    });
    return;
  }
  const skipped = test.skip;
  skipped(`${name} (skipped: ${reason})`, fn);
}
