/**
 * `sctpPolicyNeverAdmitsTcpOrUdp(adapter)`: proves, over random pods and NetworkPolicies whose
 * ports are all SCTP, that a TCP or UDP connection to a pod some policy selects never reaches
 * it through the adapter's rules (upstream's "A NetworkPolicy matching an SCTP port does not
 * allow TCP or UDP traffic", for every policy shape the arbitrary draws, not one fixture).
 * For dataplanes that implement NetworkPolicy.
 */
import fc from "fast-check";
import { evaluatePolicy } from "../../policy/evaluate.js";
import { nodePolicyCase, type NodePolicyCase } from "../arbitraries/nodePolicyCase.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { sctpNode } from "../conformance/fixture.js";
import { observeProbe, reached, type PropertyOptions } from "./trace-probe.js";

export function sctpPolicyNeverAdmitsTcpOrUdp(
  adapter: ConformanceAdapter,
  options: PropertyOptions = {},
): fc.IAsyncPropertyWithHooks<[NodePolicyCase]> {
  const cases = nodePolicyCase({ protocols: ["SCTP"] }).filter((c) => c.probe.protocol !== "sctp");
  return fc.asyncProperty(cases, async (c) => {
    const target = `${c.target.ip}:${c.probe.port}`;
    const verdict = evaluatePolicy(c.cluster, {
      from: c.probe.from,
      to: c.target.name,
      port: c.probe.port,
      protocol: c.probe.protocol,
    });
    const isolated = c.cluster.networkPolicies.some((p) => {
      const want = p.spec?.podSelector?.matchLabels ?? {};
      const labels =
        c.cluster.pods.find((x) => x.status?.podIP === c.target.ip)?.metadata?.labels ?? {};
      return Object.keys(want).every((k) => labels[k] === want[k]);
    });
    if (!isolated) return true;
    if (verdict.allowed)
      throw new Error(
        `reference: evaluatePolicy allows ${c.probe.protocol} to ${target} under SCTP-only policies`,
      );
    const o = await observeProbe(adapter, c.cluster, sctpNode(), c.probe, options);
    if (reached(o, target))
      throw new Error(
        `${adapter.name}: ${c.probe.protocol.toUpperCase()} ${c.probe.from} → ${target} was delivered, but every policy selecting ${c.target.name} allows only SCTP`,
      );
    return true;
  });
}
