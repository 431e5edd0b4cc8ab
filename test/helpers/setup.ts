/**
 * Loaded by jest before every test file (setupFilesAfterEnv): every test must make at least one
 * assertion, so a test whose loop ran zero times, or whose callback was never called, fails
 * instead of passing vacuously. A file with kernel tests that time (probes) waits for the run's
 * kernel lock first; one that only loads and lists rules (kernelRulesOnly) does not.
 */
import { afterAll, beforeAll, beforeEach, expect } from "@jest/globals";
import { needsKernelLock } from "./kernel.js";
import { holdKernelLock } from "./kernel-lock.js";

beforeEach(() => {
  expect.hasAssertions();
});

let release: (() => void) | undefined;
// Waiting is bounded by the other kernel files of the run.
beforeAll(async () => {
  if (needsKernelLock()) release = await holdKernelLock();
}, 3_600_000);
afterAll(() => {
  release?.();
});
