/** Tracing one packet through both proxiers' dataplanes (test helper). */
import { buildNodeDataplane } from "../../src/node/node-dataplane.js";
import type { Cluster } from "../../src/model/cluster.js";
import { trace, type NodeDataplane, type TraceResult } from "../../src/netfilter/trace/index.js";
import type { Observed } from "./differences.js";
import { V4, type AddressPlan, type PacketScenario } from "./scenario.js";

export interface Dataplanes {
  readonly iptables: NodeDataplane;
  readonly ipvs: NodeDataplane;
}

export function dataplanesFor(cluster: Cluster, plan: AddressPlan = V4): Dataplanes {
  return {
    iptables: buildNodeDataplane(cluster, {
      proxyConfig: plan.iptablesConfig,
      node: plan.node,
      hostports: false,
    }),
    ipvs: buildNodeDataplane(cluster, {
      proxyConfig: plan.ipvsConfig,
      node: plan.node,
      hostports: false,
    }),
  };
}

export function observe(r: TraceResult): Observed {
  const endpoints = new Set<string>();
  const verdicts = new Set<string>();
  for (const o of r.outcomes) {
    verdicts.add(o.verdict);
    if (o.destination !== undefined && o.verdict !== "DROP" && o.verdict !== "REJECT")
      endpoints.add(o.destination);
  }
  return { endpoints, verdicts };
}

export function traceBoth(
  dp: Dataplanes,
  p: PacketScenario,
): { iptables: Observed; ipvs: Observed; raw: { iptables: TraceResult; ipvs: TraceResult } } {
  const spec = { proto: p.proto, src: p.src, dst: p.dst, dport: p.dport, sport: 40000 };
  const a = trace(dp.iptables, spec, { explain: false });
  const b = trace(dp.ipvs, spec, { explain: false });
  return { iptables: observe(a), ipvs: observe(b), raw: { iptables: a, ipvs: b } };
}

export const show = (o: Observed) =>
  `{${[...o.endpoints].sort().join(", ")}} ${[...o.verdicts].sort().join("/")}`;
