/**
 * `policyVerdictsMatchReference(adapter)`: proves, over random pods, ingress NetworkPolicies
 * (TCP, UDP and SCTP ports, endPort ranges, pod peers) and probes between two pods, that the
 * probe reaches its pod through the adapter's rules exactly when `evaluatePolicy` allows it.
 * For dataplanes that implement NetworkPolicy.
 */
import fc from "fast-check";
import { describeObservation } from "../../backends/agree.js";
import { evaluatePolicy } from "../../policy/evaluate.js";
import { nodePolicyCase, type NodePolicyCase } from "../arbitraries/nodePolicyCase.js";
import type { ConformanceAdapter } from "../conformance/adapter.js";
import { sctpNode } from "../conformance/fixture.js";
import { observeProbe, reached, type PropertyOptions } from "./trace-probe.js";

export function policyVerdictsMatchReference(
  adapter: ConformanceAdapter,
  options: PropertyOptions = {},
): fc.IAsyncPropertyWithHooks<[NodePolicyCase]> {
  return fc.asyncProperty(nodePolicyCase(), async (c) => {
    const target = `${c.target.ip}:${c.probe.port}`;
    const verdict = evaluatePolicy(c.cluster, {
      from: c.probe.from,
      to: c.target.name,
      port: c.probe.port,
      protocol: c.probe.protocol,
    });
    const o = await observeProbe(adapter, c.cluster, sctpNode(), c.probe, options);
    if (reached(o, target) !== verdict.allowed)
      throw new Error(
        `${adapter.name}: ${c.probe.protocol.toUpperCase()} ${c.probe.from} → ${target}: evaluatePolicy says ${verdict.allowed ? "allowed" : "denied"}, traced ${describeObservation(o)}`,
      );
    return true;
  });
}
