/**
 * `-j CONNMARK`: `--set-xmark`/`--set-mark`/`--and-mark`/`--or-mark`/`--xor-mark` on the
 * connection mark, or `--save-mark`/`--restore-mark` with `--nfmask`/`--ctmask` (or `--mask`
 * for both). The save form always prints both masks for save/restore.
 */
import { CONNMARK, MARK } from "../packet-fields.js";
import { assertNever } from "../../util/assert-never.js";
import { ARG, fail, FLAG, single } from "../matches/extension.js";
import { hex, parseUint } from "../matches/values.js";
import type { TargetExtension } from "./extension.js";
import type { Target } from "./index.js";
import { markOperation } from "./mark.js";

type Connmark = Extract<Target, { kind: "CONNMARK" }>;
const SET_OPS = ["--set-xmark", "--set-mark", "--and-mark", "--or-mark", "--xor-mark"] as const;

export const connmarkTarget: TargetExtension<Connmark> = {
  name: "CONNMARK",
  kind: "CONNMARK",
  options: {
    ...Object.fromEntries(SET_OPS.map((o) => [o, ARG])),
    "--save-mark": FLAG,
    "--restore-mark": FLAG,
    "--nfmask": ARG,
    "--ctmask": ARG,
    "--mask": ARG,
  },
  build(options) {
    const o = single(options, "CONNMARK");
    const sets = SET_OPS.filter((n) => o.has(n));
    const modes = sets.length + (o.has("--save-mark") ? 1 : 0) + (o.has("--restore-mark") ? 1 : 0);
    if (modes !== 1)
      fail(
        `CONNMARK: exactly one of the --set-*, --save-mark or --restore-mark options is required`,
      );
    const masks = ["--nfmask", "--ctmask", "--mask"].filter((n) => o.has(n));
    if (sets.length === 1) {
      if (masks.length > 0)
        fail(`CONNMARK: "${masks[0]}" is only valid with --save-mark or --restore-mark`);
      const op = sets[0] as (typeof SET_OPS)[number];
      const { value, mask } = markOperation(op, o.get(op)?.args[0] as string, `CONNMARK ${op}`);
      return { kind: "CONNMARK", op: "set", value, mask, nfmask: 0xffffffff, ctmask: mask };
    }
    if (o.has("--mask") && (o.has("--nfmask") || o.has("--ctmask")))
      fail(`CONNMARK: "--mask" cannot be combined with "--nfmask" or "--ctmask"`);
    const num = (n: string): number | undefined => {
      const w = o.get(n)?.args[0];
      return w === undefined ? undefined : parseUint(w, 0xffffffff, `CONNMARK ${n}`);
    };
    const both = num("--mask");
    const nfmask = both ?? num("--nfmask") ?? 0xffffffff;
    const ctmask = both ?? num("--ctmask") ?? 0xffffffff;
    return {
      kind: "CONNMARK",
      op: o.has("--save-mark") ? "save" : "restore",
      value: 0,
      mask: ctmask,
      nfmask,
      ctmask,
    };
  },
  format(t) {
    if (t.op === "set") return `--set-xmark ${hex(t.value)}/${hex(t.mask)}`;
    return `--${t.op}-mark --nfmask ${hex(t.nfmask)} --ctmask ${hex(t.ctmask)}`;
  },
  touches: () => MARK | CONNMARK,
  apply(t, p) {
    const { mark, connmark } = p;
    switch (t.op) {
      case "set":
        return {
          kind: "marks",
          mark: undefined,
          connmark: ((connmark & ~t.mask) ^ t.value) >>> 0,
        };
      case "save":
        return {
          kind: "marks",
          mark: undefined,
          connmark: ((connmark & ~t.ctmask) ^ (mark & t.nfmask)) >>> 0,
        };
      case "restore":
        return {
          kind: "marks",
          mark: ((mark & ~t.nfmask) ^ (connmark & t.ctmask)) >>> 0,
          connmark: undefined,
        };
    }
    return assertNever(t.op);
  },
};
