/**
 * The IPVS proxier's node as the tracer sees it: kube-proxy's nat and filter tables (payload plus
 * the jump rules from the built-in chains), the 17 ipsets, the node's interfaces plus kube-ipvs0
 * holding every bound VIP (which is what makes VIPs local addresses in IPVS mode), and the IPVS
 * table as the tracer's IPVS hook.
 */
import type { Cluster } from "../model/cluster.js";
import type { NodeEnvironment } from "../model/node-environment.js";
import type { KubeProxyConfiguration } from "../model/proxy-config.js";
import type { RuleSet } from "../netfilter/model.js";
import { ipvsHook } from "../netfilter/ipvs/index.js";
import { ipsetContains, type Ipset } from "../netfilter/ipset/index.js";
import type { IpsetKey, IpsetKeyPart } from "../netfilter/model.js";
import type { IpsetMembership } from "../netfilter/trace/dataplane.js";
import type { NodeDataplaneInput } from "../netfilter/trace/dataplane.js";
import { DUMMY_DEVICE, renderIpvs, type IpvsRender } from "../proxiers/ipvs/index.js";

export interface IpvsDataplaneParts {
  readonly render: IpvsRender;
  readonly ruleSets: readonly RuleSet[];
  readonly input: NodeDataplaneInput;
}

export function ipvsDataplaneInput(
  cluster: Cluster,
  opts: { readonly proxyConfig: KubeProxyConfiguration; readonly node: NodeEnvironment },
): IpvsDataplaneParts {
  const render = renderIpvs(cluster, opts);
  const ruleSets = render.state.families.map((f) => f.ruleSet);
  const input: NodeDataplaneInput = {
    ruleSets,
    interfaces: [
      ...opts.node.interfaces.filter((i) => i.name !== DUMMY_DEVICE),
      { name: DUMMY_DEVICE, addresses: render.addresses },
    ],
    ipsets: indexedMembership(render.ipsets),
    nfacct: opts.node.kernel.nfacct,
    ipvs: ipvsHook(render.state.table),
  };
  return { render, ruleSets, input };
}

/** What the first dimension of a key or entry is keyed by: an address, or a port. */
function firstKey(part: IpsetKeyPart | undefined, byPort: boolean): string | undefined {
  if (part === undefined) return undefined;
  if (byPort) return part.kind === "ip" ? undefined : String(part.port);
  return part.kind === "port" ? undefined : `${part.ip.family}/${part.ip.value.toString()}`;
}

/**
 * ipset membership with the entries of each set bucketed by their first dimension, so that a
 * node with thousands of services does not scan every entry per packet; the test itself is the
 * ipset model's (`ipsetContains`) on the bucket.
 */
function indexedMembership(sets: readonly Ipset[]): IpsetMembership {
  const index = new Map<string, { byPort: boolean; buckets: Map<string, Ipset> }>();
  for (const set of sets) {
    const byPort = set.type === "bitmap:port";
    const groups = new Map<string, Ipset["entries"][number][]>();
    for (const e of set.entries) {
      const p = e.parts[0];
      const k =
        p === undefined
          ? undefined
          : p.kind === "port"
            ? String(p.port)
            : p.kind === "ip"
              ? `${p.ip.family}/${p.ip.value.toString()}`
              : undefined;
      // A net first dimension cannot be bucketed by address: keep the whole set then.
      if (k === undefined) {
        groups.clear();
        break;
      }
      groups.set(k, [...(groups.get(k) ?? []), e]);
    }
    const buckets = new Map<string, Ipset>();
    for (const [k, entries] of groups) buckets.set(k, { ...set, entries });
    index.set(set.name, { byPort, buckets });
  }
  const byName = new Map(sets.map((s) => [s.name, s]));
  return {
    test(name: string, key: IpsetKey): boolean | undefined {
      const set = byName.get(name);
      const idx = index.get(name);
      if (set === undefined || idx === undefined) return undefined;
      if (idx.buckets.size === 0 && set.entries.length > 0) return ipsetContains(set, key);
      const k = firstKey(key[0], idx.byPort);
      const bucket = k === undefined ? undefined : idx.buckets.get(k);
      return bucket === undefined
        ? ipsetContains({ ...set, entries: [] }, key)
        : ipsetContains(bucket, key);
    },
  };
}
