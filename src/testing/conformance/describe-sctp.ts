/**
 * `describeSctpConformance(adapter, options?)`: the SCTP test plan as jest `describe`/`test`
 * blocks in the consumer's test file, one test per upstream test the adapter's features make
 * applicable. It uses the `describe`/`test` globals of the consumer's jest (no import of
 * `@jest/globals`), so it works from the packed package in CommonJS and ESM repos alike.
 */
import type { ConformanceAdapter } from "./adapter.js";
import { applicableTests, runPlanTest, type ConformanceOptions } from "./run-plan.js";

interface JestGlobals {
  readonly describe: (name: string, fn: () => void) => void;
  readonly test: (name: string, fn: () => Promise<void>, timeout?: number) => void;
  /** jest's `expect`, where the test file has it as a global. */
  readonly expect?: (actual: unknown) => {
    toEqual(expected: unknown): void;
    readonly resolves: { toBeUndefined(): Promise<void> };
  };
}

/**
 * A property's run (`fc.assert`) as the test's assertion where jest's expect is global, so that a
 * repository running with expect.hasAssertions() (as kube-netsim's own tests do) counts it.
 */
export async function expectProperty(g: JestGlobals, run: Promise<void>): Promise<void> {
  if (g.expect === undefined) return run;
  await g.expect(run).resolves.toBeUndefined();
}

export function jestGlobals(): JestGlobals {
  const g = globalThis as unknown as Partial<JestGlobals>;
  if (typeof g.describe !== "function" || typeof g.test !== "function")
    throw new Error(
      "describeSctpConformance must be called in a jest test file (no describe/test globals)",
    );
  return g as JestGlobals;
}

export class ConformanceFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConformanceFailure";
  }
}

export function describeSctpConformance(
  adapter: ConformanceAdapter,
  options: ConformanceOptions = {},
): void {
  const { describe, test, expect } = jestGlobals();
  const tests = applicableTests(adapter);
  describe(`SCTP conformance: ${adapter.name}`, () => {
    for (const group of ["[Feature:SCTP]", "[Feature:SCTPConnectivity]"] as const) {
      const inGroup = tests.filter((t) => t.group === group);
      if (inGroup.length === 0) continue;
      describe(group, () => {
        for (const t of inGroup)
          test(t.name, async () => {
            const r = await runPlanTest(adapter, t, options);
            if (r.failures.length > 0) throw new ConformanceFailure(r.failures.join("\n\n"));
            // The test's check as a jest assertion too, so that a repository running with
            // expect.hasAssertions() (as kube-netsim's own tests do) counts it.
            expect?.(r.failures).toEqual([]);
          });
      });
    }
  });
}
