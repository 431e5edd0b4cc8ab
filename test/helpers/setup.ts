/**
 * Loaded by jest before every test file (setupFilesAfterEnv): every test must make at least one
 * assertion, so a test whose loop ran zero times, or whose callback was never called, fails
 * instead of passing vacuously. A file with kernel tests waits for the run's kernel lock first.
 */
import { afterAll, beforeAll, beforeEach, expect } from "@jest/globals";
import { registersKernelTests } from "./kernel.js";
import { holdKernelLock } from "./kernel-lock.js";

beforeEach(() => {
  expect.hasAssertions();
});

let release: (() => void) | undefined;
// Waiting is bounded by the other kernel files of the run.
beforeAll(async () => {
  if (registersKernelTests()) release = await holdKernelLock();
}, 3_600_000);
afterAll(() => {
  release?.();
});
