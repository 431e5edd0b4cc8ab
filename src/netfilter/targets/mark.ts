/**
 * `-j MARK`: `--set-xmark V[/M]`, `--set-mark V[/M]`, `--and-mark M`, `--or-mark M`,
 * `--xor-mark M`. All reduce to `mark = (mark & ~mask) ^ value`, printed as `--set-xmark V/M`.
 */
import { MARK } from "../packet-fields.js";
import { ARG, fail, single } from "../matches/extension.js";
import { hex, parseMarkMask, parseUint } from "../matches/values.js";
import type { TargetExtension } from "./extension.js";
import type { Target } from "./index.js";

type Mark = Extract<Target, { kind: "MARK" }>;
const OPS = ["--set-xmark", "--set-mark", "--and-mark", "--or-mark", "--xor-mark"] as const;

/** The (value, mask) pair a MARK/CONNMARK operation reduces to. */
export function markOperation(
  op: (typeof OPS)[number],
  word: string,
  what: string,
): { value: number; mask: number } {
  switch (op) {
    case "--set-xmark":
      return parseMarkMask(word, what);
    case "--set-mark": {
      const m = parseMarkMask(word, what);
      return { value: m.value, mask: (m.mask | m.value) >>> 0 };
    }
    case "--and-mark":
      return { value: 0, mask: ~parseUint(word, 0xffffffff, what) >>> 0 };
    case "--or-mark": {
      const v = parseUint(word, 0xffffffff, what);
      return { value: v, mask: v };
    }
    case "--xor-mark":
      return { value: parseUint(word, 0xffffffff, what), mask: 0 };
  }
}

export const markTarget: TargetExtension<Mark> = {
  name: "MARK",
  kind: "MARK",
  options: Object.fromEntries(OPS.map((o) => [o, ARG])),
  build(options) {
    const o = single(options, "MARK");
    const given = OPS.filter((n) => o.has(n));
    if (given.length !== 1) fail(`MARK: exactly one of ${OPS.join(", ")} is required`);
    const op = given[0] as (typeof OPS)[number];
    const { value, mask } = markOperation(op, o.get(op)?.args[0] as string, `MARK ${op}`);
    return { kind: "MARK", value, mask, op: op.slice(2) as Mark["op"] };
  },
  format: (t) => `--set-xmark ${hex(t.value)}/${hex(t.mask)}`,
  touches: () => MARK,
  apply: (t, p) => ({
    kind: "marks",
    mark: ((p.mark & ~t.mask) ^ t.value) >>> 0,
    connmark: undefined,
  }),
};
