/**
 * jest's order (failed first, then slowest first from its timing cache, else largest first), with
 * the kernel test files that hold the kernel lock spread evenly through it: they run one at a time
 * (kernel-lock.ts), so a worker that reaches one while another runs should find other files in
 * between.
 */
import { readFileSync } from "node:fs";
import Sequencer from "@jest/test-sequencer";

const KERNEL = /\bkernelTest\(|\bdescribeKernelOracle\(|\bnftTest\(/;
// Files that only load and list rules run beside the others, as pure files do (kernel.ts).
const RULES_ONLY = /^kernelRulesOnly\(\);$/m;

export default class KernelSpreadingSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const kernel = [];
    const other = [];
    for (const t of sorted) {
      const text = readFileSync(t.path, "utf8");
      (KERNEL.test(text) && !RULES_ONLY.test(text) ? kernel : other).push(t);
    }
    if (kernel.length === 0 || other.length === 0) return sorted;
    const out = [];
    let j = 0;
    kernel.forEach((k, i) => {
      out.push(k);
      const until = Math.round(((i + 1) * other.length) / kernel.length);
      while (j < until) out.push(other[j++]);
    });
    return out.concat(other.slice(j));
  }
}
