/**
 * `renderIpvs`: the whole state the kube-proxy IPVS proxier programs on a node, for each IP
 * family the node has (one proxier per family, sharing one IPVS table and one ipset
 * namespace): ipvsadm-save text, the ipsets (as data, and their ipset save text), the iptables rules (built as data, and their
 * restore text) and the addresses bound on kube-ipvs0.
 */
import type { Cluster } from "../../model/cluster.js";
import type { IPFamily } from "../../net/index.js";
import {
  formatIpvsadmSave,
  virtualServerKey,
  type IpvsService,
  type IpvsTable,
} from "../../netfilter/ipvs/index.js";
import { proxierSettings, type ProxierOptions } from "../common/index.js";
import { familyPlanSource } from "../common/plan.js";
import { ipvsIpsetModel } from "./ipsets.js";
import { formatIpsetSave, type Ipset } from "../../netfilter/ipset/index.js";
import type { RuleSet } from "../../netfilter/model.js";
import { formatIptablesRestore } from "../../netfilter/format/restore.js";
import { buildIpvsIptables, ipvsNodeState } from "./iptables-rules.js";
import { syncFamily, type IpvsFamilySync } from "./sync.js";
import { OperationalError } from "../../issue/operational-error.js";

export interface IpvsFamilyState extends IpvsFamilySync {
  /** The iptables-restore payload kube-proxy writes for this family, as data. */
  readonly payload: RuleSet;
  /** The node's nat and filter tables: the payload with the built-in chains and jumps. */
  readonly ruleSet: RuleSet;
  /** The iptables-restore payload kube-proxy writes for this family. */
  readonly iptables: string;
  /** `ruleSet` in restore form, loadable into an empty namespace. */
  readonly iptablesWithJumps: string;
}

export interface IpvsState {
  readonly families: readonly IpvsFamilyState[];
  /** The shared IPVS table (both families). */
  readonly table: IpvsTable;
}

export interface IpvsRender {
  /** `ipvsadm-save -n` text. */
  readonly ipvs: string;
  /** Every set of every family as the kernel holds it, in creation order. */
  readonly ipsets: readonly Ipset[];
  /** `ipset save` text of `ipsets`. */
  readonly ipset: string;
  /** The iptables-restore payload of the node's first family (see `state` for the others). */
  readonly iptables: string;
  /** Addresses on kube-ipvs0, `ip/32` or `ip/128`. */
  readonly addresses: string[];
  readonly state: IpvsState;
}

/** The node cannot run the IPVS proxier (kernel.ipvs: false). */
export class IpvsUnavailableError extends OperationalError {
  constructor(message: string) {
    super("ipvs-unavailable", message);
    this.name = "IpvsUnavailableError";
  }
}

function hostPrefix(family: IPFamily): number {
  return family === "IPv4" ? 32 : 128;
}

export function renderIpvs(cluster: Cluster, opts: ProxierOptions): IpvsRender {
  if (!opts.node.kernel.ipvs)
    throw new IpvsUnavailableError(
      "the node has no IPVS (kernel.ipvs: false); kube-proxy refuses to start in ipvs mode",
    );
  const families: IpvsFamilyState[] = opts.node.ipFamilies.map((family) => {
    const settings = proxierSettings(cluster, family, opts);
    const sync = syncFamily(familyPlanSource(cluster, settings));
    const payload = buildIpvsIptables({
      family,
      ipsets: sync.ipsets,
      noNodeAccess: sync.noNodeAccess,
      masqueradeAll: settings.masqueradeAll,
      localDetector: settings.localDetector,
      masqueradeMark: settings.masqueradeMark,
      randomFully: opts.node.kernel.iptablesRandomFully,
    });
    const ruleSet = ipvsNodeState(payload);
    return {
      ...sync,
      payload,
      ruleSet,
      iptables: formatIptablesRestore(payload),
      iptablesWithJumps: formatIptablesRestore(ruleSet),
    };
  });
  // Two service ports may name the same virtual server; the later sync wins, as in the kernel.
  const byKey = new Map<string, IpvsService>();
  for (const f of families)
    for (const v of f.virtualServers)
      byKey.set(virtualServerKey(v.virtualServer), {
        virtualServer: v.virtualServer,
        realServers: v.realServers,
      });
  const table: IpvsTable = { services: [...byKey.values()] };
  const ipsets = families.flatMap((f) => f.ipsets.map(ipvsIpsetModel));
  return {
    ipvs: formatIpvsadmSave(table),
    ipsets,
    ipset: formatIpsetSave(ipsets),
    iptables: families[0]?.iptables ?? "",
    addresses: families.flatMap((f) => f.boundAddresses.map((a) => `${a}/${hostPrefix(f.family)}`)),
    state: { families, table },
  };
}
