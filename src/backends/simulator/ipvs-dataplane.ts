/**
 * The IPVS proxier's node as the tracer sees it: kube-proxy's nat and filter tables (payload plus
 * the jump rules from the built-in chains), the 17 ipsets, the node's interfaces plus kube-ipvs0
 * holding every bound VIP (which is what makes VIPs local addresses in IPVS mode), and the IPVS
 * table as the tracer's IPVS hook.
 */
import type { Cluster } from "../../model/cluster.js";
import type { NodeEnvironment } from "../../model/node-environment.js";
import type { KubeProxyConfiguration } from "../../model/proxy-config.js";
import type { RuleSet } from "../../netfilter/model.js";
import { ipvsHook } from "../../netfilter/ipvs/index.js";
import { ipsetTest, parseIpsetSave } from "../../netfilter/ipset/index.js";
import { parseIptables } from "../../netfilter/parse/iptables.js";
import type { NodeDataplaneInput } from "../../netfilter/trace/dataplane.js";
import { DUMMY_DEVICE, renderIpvs, type IpvsRender } from "../../proxiers/ipvs/index.js";

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
  const ruleSets = render.state.families.map((f) =>
    parseIptables(f.iptablesWithJumps, { file: `<kube-proxy ipvs ${f.family}>`, family: f.family }),
  );
  const sets = parseIpsetSave(render.ipset, "<kube-proxy ipvs ipsets>");
  const input: NodeDataplaneInput = {
    ruleSets,
    interfaces: [
      ...opts.node.interfaces.filter((i) => i.name !== DUMMY_DEVICE),
      { name: DUMMY_DEVICE, addresses: render.addresses },
    ],
    ipsets: { test: (name, key) => ipsetTest(sets, name, key) },
    nfacct: opts.node.kernel.nfacct,
    ipvs: ipvsHook(render.state.table),
  };
  return { render, ruleSets, input };
}
