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

/**
 * Whether `tool`-restore takes each text (a whole restore input of its own), as runs of one text
 * each would say. The texts `likely` marks as taken are first loaded by one run of them all: each
 * `*table` block replaces its table (a table is flushed at its `*table` line, so nothing carries
 * from one text to the next), so a run that takes them all took each. Only when that run fails
 * are they loaded one run each. The others are loaded one run each (a refusal names one line).
 * Hundreds of processes become one where our parser and the kernel agree, as they must.
 */
export function restoresTaken(
  ns: Netns,
  tool: string,
  texts: readonly string[],
  likely: readonly boolean[],
): boolean[] {
  const together = texts.flatMap((_, i) => (likely[i] === true ? [i] : []));
  const alone = texts.flatMap((_, i) => (likely[i] === true ? [] : [i]));
  const restore = (input: string): BatchStep => ({ cmd: `${tool}-restore`, args: [], input });
  const items = [
    ...(together.length > 0 ? [[restore(together.map((i) => texts[i]).join(""))]] : []),
    ...alone.map((i) => [restore(texts[i]!)]),
  ];
  const results = runBatch(ns, items);
  const taken: boolean[] = new Array<boolean>(texts.length).fill(false);
  alone.forEach(
    (i, k) => (taken[i] = results[k + (together.length > 0 ? 1 : 0)]?.[0]?.status === 0),
  );
  if (together.length > 0) {
    if (results[0]?.[0]?.status === 0) for (const i of together) taken[i] = true;
    else
      runBatch(
        ns,
        together.map((i) => [restore(texts[i]!)]),
      ).forEach(([r], k) => (taken[together[k]!] = r?.status === 0));
  }
  return taken;
}
