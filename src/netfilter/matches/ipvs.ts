/**
 * `-m ipvs`: `[!] --ipvs`, `[!] --vproto P`, `[!] --vaddr A[/M]`, `[!] --vport N`,
 * `--vdir ORIGINAL|REPLY`, `[!] --vmethod GATE|IPIP|MASQ`, `[!] --vportctl N`. Every property
 * but a lone `! --ipvs` needs the packet to belong to IPVS (`ctx.ipvs`).
 */
import { OUTSIDE } from "../packet-fields.js";
import type { CIDR } from "../../net/index.js";
import { cidrContains } from "../../net/index.js";
import type { Negatable } from "../model.js";
import { fail, NEG_ARG, NEG_FLAG, outcome, single, type MatchExtension } from "./extension.js";
import { formatCidrNoHost } from "./format-addr.js";
import { packetHasProtocol, protocolCanonical, protocolNumber } from "./protocol.js";
import { parseAddressSpec, portOf } from "./values.js";

export interface IpvsMatch {
  readonly module: "ipvs";
  readonly ipvs?: Negatable<true>;
  readonly vproto?: Negatable<number>;
  readonly vaddr?: Negatable<CIDR>;
  readonly vport?: Negatable<number>;
  readonly vdir?: "ORIGINAL" | "REPLY";
  readonly vmethod?: Negatable<"GATE" | "IPIP" | "MASQ">;
  readonly vportctl?: Negatable<number>;
}

export const ipvsMatch: MatchExtension<IpvsMatch> = {
  module: "ipvs",
  options: {
    "--ipvs": NEG_FLAG,
    "--vproto": NEG_ARG,
    "--vaddr": NEG_ARG,
    "--vport": NEG_ARG,
    "--vdir": { args: 1, negatable: false },
    "--vmethod": NEG_ARG,
    "--vportctl": NEG_ARG,
  },
  build(options, env) {
    const o = single(options, "ipvs");
    if (o.size === 0) fail(`ipvs: at least one option is required`);
    const m: { -readonly [K in keyof IpvsMatch]: IpvsMatch[K] } = { module: "ipvs" };
    for (const opt of o.values()) {
      const a = opt.args[0] as string;
      const n = opt.negated;
      switch (opt.name) {
        case "--ipvs":
          m.ipvs = { value: true, negated: n };
          break;
        case "--vproto": {
          const p = protocolNumber(a);
          if (p === undefined) fail(`ipvs: unknown protocol "${a}"`);
          m.vproto = { value: p, negated: n };
          break;
        }
        case "--vaddr":
          m.vaddr = { value: parseAddressSpec(a, env.family, "ipvs --vaddr"), negated: n };
          break;
        case "--vport":
          // XTTYPE_PORT in libxt_ipvs: read as a service (see PortForm).
          m.vport = { value: portOf(a, "ipvs --vport", "service"), negated: n };
          break;
        case "--vportctl":
          m.vportctl = { value: portOf(a, "ipvs --vportctl", "service"), negated: n };
          break;
        case "--vdir": {
          const d = a.toUpperCase();
          if (d !== "ORIGINAL" && d !== "REPLY") fail(`ipvs: --vdir: bad value "${a}"`);
          m.vdir = d;
          break;
        }
        default: {
          const v = a.toUpperCase();
          if (v !== "GATE" && v !== "IPIP" && v !== "MASQ")
            fail(`ipvs: --vmethod: bad value "${a}"`);
          m.vmethod = { value: v, negated: n };
        }
      }
    }
    return m;
  },
  format(m) {
    const b = (x: { negated: boolean }): string => (x.negated ? "! " : "");
    const out: string[] = [];
    if (m.ipvs) out.push(`${b(m.ipvs)}--ipvs`);
    if (m.vproto) out.push(`${b(m.vproto)}--vproto ${m.vproto.value}`);
    if (m.vaddr) out.push(`${b(m.vaddr)}--vaddr ${formatCidrNoHost(m.vaddr.value)}`);
    if (m.vport) out.push(`${b(m.vport)}--vport ${m.vport.value}`);
    if (m.vdir) out.push(`--vdir ${m.vdir}`);
    if (m.vmethod) out.push(`${b(m.vmethod)}--vmethod ${m.vmethod.value}`);
    if (m.vportctl) out.push(`${b(m.vportctl)}--vportctl ${m.vportctl.value}`);
    return out.join(" ");
  },
  // The IPVS view is branch state, compared; what IPVS scheduled may differ between traces.
  reads: () => OUTSIDE,
  evaluate(m, _p, ctx) {
    const v = ctx.ipvs;
    const isIpvs = v?.isIpvs ?? false;
    const onlyProperty =
      m.vproto === undefined &&
      m.vaddr === undefined &&
      m.vport === undefined &&
      m.vdir === undefined &&
      m.vmethod === undefined &&
      m.vportctl === undefined;
    const prop = isIpvs !== (m.ipvs?.negated ?? false);
    if (onlyProperty || !prop) return outcome(prop);
    if (!isIpvs || v === undefined) return outcome(false);
    const ok = (n: Negatable<unknown> | undefined, t: () => boolean): boolean =>
      n === undefined || t() !== n.negated;
    return outcome(
      ok(
        m.vproto,
        () =>
          v.vproto !== undefined &&
          packetHasProtocol(v.vproto, protocolCanonical(`${m.vproto?.value}`) ?? ""),
      ) &&
        ok(
          m.vaddr,
          () => v.vaddr !== undefined && cidrContains((m.vaddr as Negatable<CIDR>).value, v.vaddr),
        ) &&
        ok(m.vport, () => v.vport === m.vport?.value) &&
        (m.vdir === undefined || v.vdir === m.vdir) &&
        // The forwarding method and control port are not part of the IPVS view: only their negations hold.
        ok(m.vmethod, () => false) &&
        ok(m.vportctl, () => false),
    );
  },
};
