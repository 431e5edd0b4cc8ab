/**
 * `-m physdev`: `[!] --physdev-in|--physdev-out NAME`, `[!] --physdev-is-in|-is-out|-is-bridged`.
 * A simulated packet is never bridged, and for a packet that is not bridged the kernel's match
 * holds exactly when every option given is negated.
 */
import type { Negatable } from "../model.js";
import { fail, NEG_ARG, NEG_FLAG, outcome, single, type MatchExtension } from "./extension.js";

export interface PhysdevMatch {
  readonly module: "physdev";
  readonly physdevIn?: Negatable<string>;
  readonly physdevOut?: Negatable<string>;
  readonly isIn?: Negatable<true>;
  readonly isOut?: Negatable<true>;
  readonly isBridged?: Negatable<true>;
}

function iface(s: string): string {
  if (s.length === 0 || s.length > 15) fail(`physdev: invalid interface name "${s}"`);
  return s;
}

export const physdevMatch: MatchExtension<PhysdevMatch> = {
  module: "physdev",
  options: {
    "--physdev-in": NEG_ARG,
    "--physdev-out": NEG_ARG,
    "--physdev-is-in": NEG_FLAG,
    "--physdev-is-out": NEG_FLAG,
    "--physdev-is-bridged": NEG_FLAG,
  },
  build(options) {
    const o = single(options, "physdev");
    if (o.size === 0) fail(`physdev: at least one option is required`);
    const i = o.get("--physdev-in");
    const out = o.get("--physdev-out");
    const flag = (n: string): Negatable<true> | undefined => {
      const f = o.get(n);
      return f === undefined ? undefined : { value: true, negated: f.negated };
    };
    const isIn = flag("--physdev-is-in");
    const isOut = flag("--physdev-is-out");
    const isBridged = flag("--physdev-is-bridged");
    return {
      module: "physdev",
      ...(i && { physdevIn: { value: iface(i.args[0] as string), negated: i.negated } }),
      ...(out && { physdevOut: { value: iface(out.args[0] as string), negated: out.negated } }),
      ...(isIn && { isIn }),
      ...(isOut && { isOut }),
      ...(isBridged && { isBridged }),
    };
  },
  format(m) {
    const b = (n: { negated: boolean }): string => (n.negated ? "! " : "");
    const out: string[] = [];
    if (m.isIn) out.push(`${b(m.isIn)}--physdev-is-in`);
    if (m.physdevIn) out.push(`${b(m.physdevIn)}--physdev-in ${m.physdevIn.value}`);
    if (m.isOut) out.push(`${b(m.isOut)}--physdev-is-out`);
    if (m.physdevOut) out.push(`${b(m.physdevOut)}--physdev-out ${m.physdevOut.value}`);
    if (m.isBridged) out.push(`${b(m.isBridged)}--physdev-is-bridged`);
    return out.join(" ");
  },
  /**
   * The kernel refuses `--physdev-out`/`--physdev-is-out` in OUTPUT unless the rule also says
   * `--physdev-is-bridged` (not negated): a locally generated packet has no bridge port yet
   * (xt_physdev's checkentry; checked with iptables-nft 1.8.9, which checks base chains only).
   */
  allowedHooks(m) {
    const out = m.physdevOut !== undefined || m.isOut !== undefined;
    const bridged = m.isBridged !== undefined && !m.isBridged.negated;
    return out && !bridged ? ["PREROUTING", "INPUT", "FORWARD", "POSTROUTING"] : undefined;
  },
  // No bridge is modelled: the outcome depends on the rule alone.
  reads: () => 0,
  evaluate(m) {
    const all = [m.physdevIn, m.physdevOut, m.isIn, m.isOut, m.isBridged];
    return outcome(all.every((o) => o === undefined || o.negated));
  },
};
