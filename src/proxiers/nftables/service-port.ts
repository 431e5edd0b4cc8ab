/**
 * One service port's chains and map elements (spec §5), from the shared plan. Element order
 * follows §5.2 (it only shows in the Dump); chains get their rules in §5.3's order.
 */
import type { TableSink } from "../../netfilter/nftables/table-sink.js";
import {
  goto,
  jump,
  match,
  meta,
  payload,
  value,
  verdictStatement,
  type MapValue,
  type Rule,
  type Statement,
  type Verdict,
} from "../../netfilter/nftables/model.js";
import type { Endpoint } from "../common/endpoint.js";
import type { NoEndpointsVerdict, ServicePortPlan } from "../common/plan.js";
import { localTrafficMatch } from "./detector.js";
import { affinitySetOf, endpointBase, endpointChainOf, servicePortChains } from "./names.js";
import {
  CLUSTER_IPS,
  FIREWALL_IPS,
  MARK_FOR_MASQUERADE,
  NO_ENDPOINT_NODEPORTS,
  NO_ENDPOINT_SERVICES,
  REJECT_CHAIN,
  SERVICE_IPS,
  SERVICE_NODEPORTS,
} from "./setup.js";
import type { NftSettings } from "./settings.js";

const rule = (statements: Statement[], comment?: string): Rule =>
  comment === undefined ? { statements } : { statements, comment };
const toMasquerade = verdictStatement(jump(MARK_FOR_MASQUERADE));
const verdictValue = (v: Verdict): MapValue => ({ kind: "verdict", verdict: v });

function noEndpointVerdict(v: NoEndpointsVerdict): Verdict {
  return v === "reject" ? goto(REJECT_CHAIN) : { kind: "drop" };
}

export function addServicePort(b: TableSink, plan: ServicePortPlan, s: NftSettings): void {
  const sp = plan.servicePort;
  const w = s.words.word;
  const chains = servicePortChains(sp);
  const proto = sp.lowerProtocol;
  const port = String(sp.port);
  const hasEndpoints = plan.hasEndpoints;
  const hasInternal = plan.hasInternalEndpoints;
  const hasExternal = plan.hasExternalEndpoints;
  const internalChain = sp.internalPolicyLocal ? chains.local : chains.cluster;
  const externalPolicyChain = sp.externalPolicyLocal ? chains.local : chains.cluster;
  const usesExternalChain = hasEndpoints && sp.externallyAccessible;
  // Unlike iptables, the firewall is written even when the service has no endpoints (§5.2).
  const usesFirewall = sp.loadBalancerVIPs.length > 0 && sp.loadBalancerSourceRanges.length > 0;
  const usesCluster = plan.usesClusterPolicy;
  const usesLocal = plan.usesLocalPolicy;
  const internalVerdict =
    plan.internalVerdict === undefined ? undefined : noEndpointVerdict(plan.internalVerdict);
  const externalVerdict =
    plan.externalVerdict === undefined ? undefined : noEndpointVerdict(plan.externalVerdict);

  // Elements (§5.2).
  b.addElement(CLUSTER_IPS, { key: [sp.clusterIP] });
  if (hasInternal)
    b.addElement(SERVICE_IPS, {
      key: [sp.clusterIP, proto, port],
      value: verdictValue(goto(internalChain)),
    });
  else if (internalVerdict !== undefined)
    b.addElement(NO_ENDPOINT_SERVICES, {
      key: [sp.clusterIP, proto, port],
      comment: sp.name,
      value: verdictValue(internalVerdict),
    });
  for (const ip of sp.externalIPs) {
    if (hasEndpoints)
      b.addElement(SERVICE_IPS, {
        key: [ip, proto, port],
        value: verdictValue(goto(chains.external)),
      });
    if (!hasExternal && externalVerdict !== undefined)
      b.addElement(NO_ENDPOINT_SERVICES, {
        key: [ip, proto, port],
        comment: sp.name,
        value: verdictValue(externalVerdict),
      });
  }
  for (const ip of sp.loadBalancerVIPs) {
    if (hasEndpoints)
      b.addElement(SERVICE_IPS, {
        key: [ip, proto, port],
        value: verdictValue(goto(chains.external)),
      });
    if (usesFirewall)
      b.addElement(FIREWALL_IPS, {
        key: [ip, proto, port],
        value: verdictValue(goto(chains.firewall)),
      });
  }
  if (!hasExternal && externalVerdict !== undefined)
    for (const ip of sp.loadBalancerVIPs)
      b.addElement(NO_ENDPOINT_SERVICES, {
        key: [ip, proto, port],
        comment: sp.name,
        value: verdictValue(externalVerdict),
      });
  if (sp.nodePort !== 0) {
    const key = [proto, String(sp.nodePort)];
    if (hasEndpoints)
      b.addElement(SERVICE_NODEPORTS, { key, value: verdictValue(goto(chains.external)) });
    if (!hasExternal && externalVerdict !== undefined)
      b.addElement(NO_ENDPOINT_NODEPORTS, {
        key,
        comment: sp.name,
        value: verdictValue(externalVerdict),
      });
  }

  // Chains (§5.3).
  const internalMasquerade = (): Rule[] => {
    const dest = match(payload(w, "daddr"), value(sp.clusterIP));
    if (s.masqueradeAll) return [rule([dest, toMasquerade])];
    const notLocal = localTrafficMatch(s.common.localDetector, s.words, true);
    return notLocal === undefined ? [] : [rule([dest, notLocal, toMasquerade])];
  };

  if (usesExternalChain) {
    b.addChain(chains.external);
    if (!sp.externalPolicyLocal) {
      b.addRule(chains.external, rule([toMasquerade]));
      b.addRule(chains.external, rule([verdictStatement(goto(chains.cluster))]));
    } else {
      const local = localTrafficMatch(s.common.localDetector, s.words, false);
      if (local !== undefined)
        b.addRule(
          chains.external,
          rule([local, verdictStatement(goto(chains.cluster))], "short-circuit pod traffic"),
        );
      const fibLocal = match({ kind: "fib", flag: "saddr", result: "type" }, value("local"));
      b.addRule(chains.external, rule([fibLocal, toMasquerade], "masquerade local traffic"));
      b.addRule(
        chains.external,
        rule([fibLocal, verdictStatement(goto(chains.cluster))], "short-circuit local traffic"),
      );
      if (hasExternal)
        b.addRule(chains.external, rule([verdictStatement(goto(externalPolicyChain))]));
    }
  }

  if (usesFirewall) {
    const sources = [...sp.loadBalancerSourceRanges];
    if (plan.allowFromNode) sources.push(...sp.loadBalancerVIPs);
    b.addChain(chains.firewall);
    b.addRule(
      chains.firewall,
      rule([
        match(
          payload(w, "saddr"),
          { kind: "set-literal", elements: sources, compact: false },
          true,
        ),
        verdictStatement({ kind: "drop" }),
      ]),
    );
  }

  const affinity =
    sp.sessionAffinity.kind === "ClientIP" ? sp.sessionAffinity.timeoutSeconds : undefined;
  // Each endpoint's name base (a SHA-256) made once: the dispatch and the endpoint chain use it.
  const bases = new Map<Endpoint, string>();
  const baseOf = (ep: Endpoint): string => {
    let base = bases.get(ep);
    if (base === undefined) bases.set(ep, (base = endpointBase(sp, ep)));
    return base;
  };
  const endpointChain = (ep: Endpoint): string => endpointChainOf(baseOf(ep));
  const affinitySet = (ep: Endpoint): string => affinitySetOf(baseOf(ep));
  const policyChain = (name: string, eps: readonly Endpoint[]): void => {
    b.addChain(name);
    if (name === internalChain && hasInternal)
      for (const r of internalMasquerade()) b.addRule(name, r);
    if (affinity !== undefined)
      for (const ep of eps)
        b.addRule(
          name,
          rule([
            match(payload(w, "saddr"), { kind: "set-ref", name: affinitySet(ep) }),
            verdictStatement(goto(endpointChain(ep))),
          ]),
        );
    b.addRule(
      name,
      rule([
        {
          kind: "vmap",
          key: { kind: "numgen", mode: "random", mod: eps.length },
          map: {
            kind: "vmap-literal",
            entries: eps.map((ep, i) => ({ key: String(i), verdict: goto(endpointChain(ep)) })),
          },
        },
      ]),
    );
  };
  if (usesCluster) policyChain(chains.cluster, plan.categorized.clusterEndpoints);
  if (usesLocal) policyChain(chains.local, plan.categorized.localEndpoints);

  for (const ep of plan.categorized.allReachable) {
    const chain = endpointChain(ep);
    b.addChain(chain);
    b.addRule(chain, rule([match(payload(w, "saddr"), value(ep.ip)), toMasquerade]));
    if (affinity !== undefined) {
      b.addSet({
        kind: "set",
        name: affinitySet(ep),
        keyType: [s.words.addressType],
        flags: ["dynamic", "timeout"],
        timeout: affinity,
      });
      b.addRule(
        chain,
        rule([
          { kind: "set-update", op: "update", set: affinitySet(ep), key: payload(w, "saddr") },
        ]),
      );
    }
    b.addRule(
      chain,
      rule([
        match(meta("l4proto"), value(sp.lowerProtocol)),
        { kind: "dnat", address: ep.ip, port: ep.port },
      ]),
    );
  }
}
