/**
 * `snapshot diff`: drift between what kube-proxy should have written for the manifests on this
 * node and what the node's snapshot holds, per service port, in the mode of the proxy config:
 * - iptables (diff-iptables.ts): a kube-proxy chain missing from the node, or there but not
 *   expected; a chain whose rules differ (each missing rule, each rule kube-proxy never writes
 *   there, or the same rules in another order, which matters within a chain); a stale
 *   endpoint: a KUBE-SEP chain for an endpoint the API has not ready, or not at all.
 * - ipvs (diff-ipvs.ts): the iptables part as above, plus the IPVS table (virtual servers and
 *   their real servers, from `ipvsadm-save -n`), kube-proxy's ipsets (sets and entries) and the
 *   addresses bound on kube-ipvs0 (diff-ipvs-addresses.ts).
 * - nftables (diff-nftables.ts): the `ip kube-proxy` / `ip6 kube-proxy` tables of
 *   `nft list ruleset`: chains (base chains' hooks, priorities and policies too) and their
 *   rules, set and map elements.
 * What kube-proxy does not own (other software's rules, chains, sets, tables) is counted and not
 * judged. Counters and orders the kernel does not keep are ignored.
 */
import type { Cluster } from "../../model/cluster.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import type { KubeProxyConfiguration } from "../../model/proxy-config.js";
import { renderIptables } from "../../proxiers/iptables/render-iptables.js";
import { assertNever } from "../../util/assert-never.js";
import { diffIptablesPart } from "./diff-iptables.js";
import { diffIpvsMode } from "./diff-ipvs.js";
import { diffNftablesMode } from "./diff-nftables.js";
import type { Snapshot } from "./read.js";

export type DriftKind =
  | "missing-chain"
  | "extra-chain"
  // nftables mode: a base chain's type, hook, priority or policy
  | "chain-differs"
  | "missing-rule"
  | "unexpected-rule"
  | "rule-order"
  | "stale-endpoint"
  // IPVS mode: the IPVS table
  | "missing-virtual-server"
  | "extra-virtual-server"
  | "virtual-server-differs"
  | "missing-real-server"
  | "extra-real-server"
  | "real-server-differs"
  // IPVS mode: ipsets; nftables mode: sets and maps
  | "missing-set"
  | "extra-set"
  | "missing-element"
  | "extra-element"
  | "element-differs"
  // IPVS mode: the addresses on kube-ipvs0
  | "missing-address"
  | "extra-address";

export interface Drift {
  /** `ns/svc:port`, or undefined for rules that belong to no service port. */
  readonly servicePort?: string;
  readonly kind: DriftKind;
  readonly family: string;
  /**
   * Where: the netfilter table (`nat`, `filter`), `ipvs`, `ipset`, the nftables table
   * (`ip kube-proxy`, `ip6 kube-proxy`), or `interface` (kube-ipvs0's addresses).
   */
  readonly table: string;
  /**
   * The chain; the virtual server (`-t 10.96.0.1:443`); the ipset; the nftables chain, set or
   * map; the interface (`kube-ipvs0`).
   */
  readonly chain: string;
  readonly rule?: string;
  /** A set or map element, a real server (`ip:port`), or an interface address (`ip/32`). */
  readonly element?: string;
  readonly endpoint?: string;
  readonly message: string;
}

export interface SnapshotDiff {
  readonly inSync: boolean;
  readonly drifts: readonly Drift[];
  /** Rules outside kube-proxy's chains, not judged. */
  readonly foreign: { readonly rules: number; readonly chains: readonly string[] };
  readonly servicePorts: number;
  readonly summary: string;
}

/** One part's findings (iptables, IPVS, ipsets, nftables), merged into a SnapshotDiff. */
export interface DriftPart {
  readonly drifts: readonly Drift[];
  readonly foreignRules: number;
  readonly foreignChains: readonly string[];
  /** Service ports the expected state mentions. */
  readonly servicePorts: readonly string[];
}

export interface DiffOptions {
  readonly proxyConfig: KubeProxyConfiguration;
  readonly node: NodeEnvironment;
}

function merge(parts: readonly DriftPart[]): SnapshotDiff {
  const drifts = parts.flatMap((p) => p.drifts);
  const foreignRules = parts.reduce((n, p) => n + p.foreignRules, 0);
  const foreignChains = [...new Set(parts.flatMap((p) => p.foreignChains))].sort();
  const ports = new Set(parts.flatMap((p) => p.servicePorts));
  const driftPorts = new Set(drifts.map((d) => d.servicePort ?? "(no service)"));
  const foreign = `${foreignRules} rules outside kube-proxy's chains (not judged)`;
  const summary =
    drifts.length === 0
      ? `in sync: ${ports.size} service ports; ${foreign}`
      : `drift: ${drifts.length} differences in ${driftPorts.size} service ports; ${foreign}`;
  return {
    inSync: drifts.length === 0,
    drifts,
    foreign: { rules: foreignRules, chains: foreignChains },
    servicePorts: ports.size,
    summary,
  };
}

export function diffSnapshot(
  snapshot: Snapshot,
  cluster: Cluster,
  opts: DiffOptions,
): SnapshotDiff {
  const mode = opts.proxyConfig.mode;
  switch (mode) {
    case "iptables": {
      const rendered = renderIptables(cluster, opts);
      return merge([
        diffIptablesPart(
          snapshot,
          rendered.families.map((f) => f.ruleSet),
          cluster,
        ),
      ]);
    }
    case "ipvs":
      return merge(diffIpvsMode(snapshot, cluster, opts));
    case "nftables":
      return merge(diffNftablesMode(snapshot, cluster, opts));
    default:
      return assertNever(mode);
  }
}

/** Text: one line per drift grouped by service port, the foreign line, the summary. */
export function formatSnapshotDiff(d: SnapshotDiff): string {
  const lines: string[] = [];
  const groups = new Map<string, Drift[]>();
  for (const x of d.drifts) {
    const k = x.servicePort ?? "(no service port)";
    groups.set(k, [...(groups.get(k) ?? []), x]);
  }
  for (const [k, list] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    lines.push(`${k}:`);
    for (const x of list) lines.push(`  ${x.kind}: ${x.message}`);
  }
  if (d.foreign.rules > 0)
    lines.push(
      `other software: ${d.foreign.rules} rules in ${d.foreign.chains.join(", ")} (outside kube-proxy's chains, not judged)`,
    );
  lines.push(d.summary);
  return `${lines.join("\n")}\n`;
}
