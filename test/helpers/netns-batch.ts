/**
 * Many commands inside one namespace from one process: a shell started once with `ip netns
 * exec` runs them one after another, each as its own process with its own stdin, exactly as
 * `ns.run` would. Spawning from a jest worker forks a process of a few hundred MB (measured about
 * 40-60 ms CPU per spawn, mostly system time, plus `ip netns exec`'s own set-up); the shell's forks
 * are small. Kernel oracles that load hundreds of rule sets one at a time use this.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Netns } from "../../src/backends/netns.js";

export interface BatchStep {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly input?: string;
  /** Run only if the step before it in the same item exited 0 (else its result is undefined). */
  readonly ifOk?: boolean;
}

export interface StepResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Runs every item's steps in order, item after item, inside `ns`; returns each step's result
 * (undefined for an `ifOk` step whose previous step failed). Throws if the shell itself fails.
 */
export function runBatch(
  ns: Netns,
  items: readonly (readonly BatchStep[])[],
): (StepResult | undefined)[][] {
  const dir = mkdtempSync(join(tmpdir(), "kube-netsim-batch-"));
  try {
    const lines = ["prev=0"];
    items.forEach((steps, i) =>
      steps.forEach((step, j) => {
        const at = join(dir, `${i}-${j}`);
        writeFileSync(`${at}.in`, step.input ?? "");
        const run = `${[step.cmd, ...step.args].map(quote).join(" ")} <${quote(`${at}.in`)} >${quote(`${at}.out`)} 2>${quote(`${at}.err`)}; prev=$?; echo $prev >${quote(`${at}.rc`)}`;
        lines.push(step.ifOk === true ? `if [ $prev -eq 0 ]; then ${run}; else prev=1; fi` : run);
      }),
    );
    const script = join(dir, "run.sh");
    writeFileSync(script, `${lines.join("\n")}\n`);
    const r = ns.run("sh", [script]);
    if (r.status !== 0) throw new Error(`batch in ${ns.name} failed (${r.status}): ${r.stderr}`);
    return items.map((steps, i) =>
      steps.map((_step, j) => {
        const at = join(dir, `${i}-${j}`);
        let rc: string;
        try {
          rc = readFileSync(`${at}.rc`, "utf8");
        } catch {
          return undefined; // an ifOk step that did not run
        }
        return {
          status: Number(rc.trim()),
          stdout: readFileSync(`${at}.out`, "utf8"),
          stderr: readFileSync(`${at}.err`, "utf8"),
        };
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A step's stdout; throws with its stderr unless it ran and exited 0 (as `ns.exec` would). */
export function okOutput(step: BatchStep, r: StepResult | undefined): string {
  if (r === undefined || r.status !== 0)
    throw new Error(
      `${step.cmd} ${step.args.join(" ")} failed (${r === undefined ? "not run" : r.status}): ${r?.stderr ?? ""}`,
    );
  return r.stdout;
}

/**
 * The kernel's answers to a fast-check property's runs, in order: the answers for the inputs the
 * property is about to generate (`fc.sample` of the same arbitraries, as one `fc.tuple`, and the
 * same seed yields the same inputs in the same order) are computed first, in one batch; each run
 * takes the next. A run whose input is not the next one sampled (shrinking after a failure) asks
 * `live`, and so does every run after it: the batch's answers hold for its own order of kernel
 * calls only. (Sampling the property itself would take it for an arbitrary and bias its runs
 * differently from the 10th on.)
 */
export function answersInOrder<R>(
  inputs: readonly string[],
  answers: readonly R[],
  live: (input: string) => R,
): (input: string) => R {
  let next = 0;
  let batched = inputs.length === answers.length;
  return (input) => {
    if (batched && inputs[next] === input) return answers[next++]!;
    batched = false;
    return live(input);
  };
}
