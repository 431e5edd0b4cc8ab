import { availableParallelism } from "node:os";

/** @type {import('jest').Config} */
export default {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  setupFilesAfterEnv: ["<rootDir>/test/helpers/setup.ts"],
  // Source maps beside the code, not inline: every test file loads its modules afresh, and the
  // inline maps doubled what is read, hashed and compiled (about 15% of a file's import CPU);
  // stack traces still point at the .ts line and column.
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, sourceMaps: true },
    ],
  },
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  collectCoverageFrom: ["src/**/*.ts"],
  testTimeout: 60000,
  // Kernel tests mostly wait (probe timeouts, namespaces, restores), so one worker more than
  // there are cores: pure tests run on every core while the kernel file waits (on 2 cores, 3
  // workers kept the cores 93% busy and took the unit, property and kernel tests from 266 s to
  // 212 s; 2 left them idle in those waits). Namespaces carry the worker's pid (netns.ts).
  maxWorkers: Math.max(3, availableParallelism() + 1),
  // One kernel file at a time (test/helpers/kernel-lock.ts), spread among the pure ones.
  testSequencer: "<rootDir>/test/helpers/sequencer.js",
  // A worker's event loop is empty when the run ends, but a process that ends by an empty loop
  // tears its whole heap down first: several hundred ms for a worker that ran a hundred files on
  // a busy machine, over jest's 500 ms default, which then kills it and prints "A worker process
  // has failed to exit gracefully" on a green run. Waiting costs nothing when it exits sooner.
  workerGracefulExitTimeout: 10_000,
};
