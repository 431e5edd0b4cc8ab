/** `-j CT [--notrack] [--zone N]` (raw table). Helpers, timeouts and event masks are not modelled. */
import { fail, FLAG, single } from "../matches/extension.js";
import { parseUint } from "../matches/values.js";
import { CONTINUE, UNTRACK, type TargetExtension } from "./extension.js";

type Ct = { readonly kind: "CT"; readonly notrack: boolean; readonly options: readonly string[] };

export const ctTarget: TargetExtension<Ct> = {
  name: "CT",
  kind: "CT",
  tables: ["raw"],
  options: { "--notrack": FLAG, "--zone": { args: 1, negatable: false } },
  build(options) {
    const o = single(options, "CT");
    const notrack = o.has("--notrack");
    const z = o.get("--zone")?.args[0];
    const zone = z === undefined ? 0 : parseUint(z, 65535, "CT --zone");
    if (notrack && zone !== 0) fail(`CT: --notrack cannot be combined with other options`);
    return { kind: "CT", notrack, options: zone !== 0 ? ["--zone", `${zone}`] : [] };
  },
  format: (t) => [...(t.notrack ? ["--notrack"] : []), ...t.options].join(" "),
  // The conntrack state (and with it NAT) is branch state, always compared.
  touches: () => 0,
  apply: (t) => (t.notrack ? UNTRACK : CONTINUE),
};
