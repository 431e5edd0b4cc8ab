/**
 * Loaded by jest before every test file (setupFilesAfterEnv): every test must make at least one
 * assertion, so a test whose loop ran zero times, or whose callback was never called, fails
 * instead of passing vacuously.
 */
import { beforeEach, expect } from "@jest/globals";

beforeEach(() => {
  expect.hasAssertions();
});
