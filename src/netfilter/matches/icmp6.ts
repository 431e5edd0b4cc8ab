/** `-m icmp6 [!] --icmpv6-type {NAME|TYPE[/CODE]}` (IPv6). */
import type { Negatable } from "../model.js";
import { fail, outcome, single, type MatchExtension } from "./extension.js";
import {
  formatIcmpType,
  ICMPV6_NAMES,
  icmpTypeHolds,
  parseIcmpType,
  type IcmpTypeSpec,
} from "./icmp-types.js";
import { requireProtocol } from "./port-match.js";

export interface Icmp6Match {
  readonly module: "icmp6";
  readonly icmpType: Negatable<IcmpTypeSpec>;
}

export const icmp6Match: MatchExtension<Icmp6Match> = {
  module: "icmp6",
  options: { "--icmpv6-type": { args: 1, negatable: true } },
  build(options, env) {
    if (env.family !== "IPv6") fail(`icmp6 match is IPv6 only (use -m icmp)`);
    requireProtocol(env, "ipv6-icmp", "ICMPv6");
    const t = single(options, "icmp6").get("--icmpv6-type");
    if (t === undefined) fail(`icmp6: "--icmpv6-type" is required`);
    const spec = parseIcmpType(t.args[0] as string, ICMPV6_NAMES);
    if (spec === undefined) fail(`icmp6: invalid ICMPv6 type "${t.args[0]}"`);
    return { module: "icmp6", icmpType: { value: spec, negated: t.negated } };
  },
  format: (m) =>
    `${m.icmpType.negated ? "! " : ""}--icmpv6-type ${formatIcmpType(m.icmpType.value, false)}`,
  // The ICMP type and code are always compared.
  protocol: "icmpv6",
  reads: () => 0,
  evaluate(m, p) {
    if (p.protocol !== "icmpv6" || p.fragment) return outcome(false);
    return outcome(
      icmpTypeHolds(m.icmpType.value, p.icmpType, p.icmpCode, false) !== m.icmpType.negated,
    );
  },
};
