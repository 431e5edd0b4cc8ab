/** `-m icmp [!] --icmp-type {any|NAME|TYPE[/CODE]}` (IPv4). */
import type { Negatable } from "../model.js";
import { fail, outcome, single, type MatchExtension } from "./extension.js";
import {
  formatIcmpType,
  ICMP_NAMES,
  icmpTypeHolds,
  parseIcmpType,
  type IcmpTypeSpec,
} from "./icmp-types.js";
import { requireProtocol } from "./port-match.js";

export interface IcmpMatch {
  readonly module: "icmp";
  /** Absent: any type (`-m icmp` alone). */
  readonly icmpType?: Negatable<IcmpTypeSpec>;
}

export const icmpMatch: MatchExtension<IcmpMatch> = {
  module: "icmp",
  options: { "--icmp-type": { args: 1, negatable: true } },
  build(options, env) {
    if (env.family !== "IPv4") fail(`icmp match is IPv4 only (use -m icmp6)`);
    requireProtocol(env, "icmp", "ICMP");
    const t = single(options, "icmp").get("--icmp-type");
    if (t === undefined) return { module: "icmp" };
    const spec = parseIcmpType(t.args[0] as string, ICMP_NAMES);
    if (spec === undefined) fail(`icmp: invalid ICMP type "${t.args[0]}"`);
    return { module: "icmp", icmpType: { value: spec, negated: t.negated } };
  },
  format(m) {
    // libxt_icmp prints "any" for a rule with no --icmp-type.
    const t = m.icmpType ?? { value: { type: 0xff, codeMin: 0, codeMax: 0xff }, negated: false };
    return `${t.negated ? "! " : ""}--icmp-type ${formatIcmpType(t.value, true)}`;
  },
  // The ICMP type and code are always compared.
  protocol: "icmp",
  reads: () => 0,
  evaluate(m, p) {
    if (p.protocol !== "icmp" || p.fragment) return outcome(false);
    if (m.icmpType === undefined) return outcome(true);
    return outcome(
      icmpTypeHolds(m.icmpType.value, p.icmpType, p.icmpCode, true) !== m.icmpType.negated,
    );
  },
};
