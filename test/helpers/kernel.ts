/**
 * Kernel tests run for real wherever they can. Where they cannot, they are skipped with the
 * reason in the test name; under CI=true a missing root/tool is a failure instead, because CI
 * machines are set up to run them. Missing IPVS or SCTP is a property of this kernel, not of
 * the setup, so those stay skips with their reason even in CI.
 */
import { test } from "@jest/globals";
import { kernelSkipReason, type KernelCapabilities } from "../../src/backends/netns.js";

type Need = keyof KernelCapabilities;
const KERNEL_FEATURES: readonly Need[] = ["ipvs", "sctp"];

let registered = false;
let rulesOnly = false;
/** Whether this test file registered a kernel test that runs. */
export function registersKernelTests(): boolean {
  return registered;
}

/**
 * Called at the top of a kernel test file whose tests only load, check and list rules in
 * namespaces of their own (restores, `nft -f`/`-c`, saves and listings; no packets, no probe
 * timeouts): nothing in it depends on how fast the machine is, so it runs beside other kernel
 * files instead of waiting for the run's kernel lock (see kernel-lock.ts, sequencer.js).
 */
export function kernelRulesOnly(): void {
  rulesOnly = true;
}

/** Whether this file must hold the run's kernel lock (setup.ts): it runs kernel tests that time. */
export function needsKernelLock(): boolean {
  return registered && !rulesOnly;
}

export function kernelTest(
  name: string,
  needs: readonly Need[],
  fn: () => Promise<void> | void,
  timeoutMs = 120_000,
): void {
  const setupNeeds = needs.filter((n) => !KERNEL_FEATURES.includes(n));
  const setupReason = kernelSkipReason(setupNeeds);
  const featureReason = kernelSkipReason(needs.filter((n) => KERNEL_FEATURES.includes(n)));
  if (setupReason === undefined && featureReason === undefined) {
    registered = true;
    test(name, fn, timeoutMs);
    return;
  }
  if (setupReason !== undefined && process.env.CI === "true") {
    test(name, () => {
      throw new Error(`kernel test must run in CI but cannot: ${setupReason}`);
    });
    return;
  }
  const reason = setupReason ?? featureReason ?? "";
  const skipped = test.skip;
  skipped(`${name} (skipped: ${reason})`, fn);
}
