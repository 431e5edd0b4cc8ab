/**
 * Guards a property against passing vacuously: a body that loops over generated items, or skips
 * the ones it does not apply to, proves nothing if no run ever reaches its check. The body calls
 * `hit()` where it checks; `testReached(what)`, declared right after the property, is a test that
 * fails unless some run did. Jest runs a file's tests in order, so every run has counted by then.
 */
import { expect, test } from "@jest/globals";

export interface Reached {
  /** Counts `n` checks made (default 1). */
  hit(n?: number): void;
  /** Declares the test that the property above made at least `min` checks (default 1). */
  testReached(what: string, min?: number): void;
}

export function reached(): Reached {
  let count = 0;
  return {
    hit(n = 1) {
      count += n;
    },
    testReached(what, min = 1) {
      test(`the property above reached ${what}`, () => {
        expect(count).toBeGreaterThanOrEqual(min);
      });
    },
  };
}
