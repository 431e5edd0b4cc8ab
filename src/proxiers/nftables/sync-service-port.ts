/**
 * One service port's objects, split the way kube-proxy's sync loop needs them
 * (pkg/proxy/nftables/proxier.go `syncProxyRules`): which chains it uses, its map elements in
 * the order they are ensured, and its chain rules in the order they are added. The objects
 * themselves come from `addServicePort` (the one definition of what kube-proxy writes); this
 * file records them and sorts them into kube-proxy's transaction order:
 *
 * 1. `ensureChain` of every endpoint chain (locally reachable endpoints, in order), the cluster
 *    policy chain, the local policy chain and the external chain;
 * 2. the elements (`cluster-ips`, ClusterIP, external IPs), then `ensureChain` of the firewall
 *    chain, then the LoadBalancer IP and NodePort elements;
 * 3. (changed services only) the internal masquerade rule, the external chain's rules, the
 *    firewall rule, the affinity sets, the policy chains' rules, the endpoint chains' rules.
 */
import { TableBuilder } from "../../netfilter/nftables/builder.js";
import type { NamedSet, Rule, SetElement } from "../../netfilter/nftables/model.js";
import type { ServicePortPlan } from "../common/plan.js";
import { endpointChain, servicePortChains } from "./names.js";
import { addServicePort } from "./service-port.js";
import type { NftSettings } from "./settings.js";
import {
  CLUSTER_IPS,
  FIREWALL_IPS,
  NO_ENDPOINT_NODEPORTS,
  NO_ENDPOINT_SERVICES,
  SERVICE_IPS,
  SERVICE_NODEPORTS,
  TABLE_NAME,
} from "./setup.js";
import type { SetDecl } from "./sync-operations.js";
import { decl } from "./sync-setup.js";

export interface ServicePortObjects {
  /** Chains in `ensureChain` order, the firewall chain excepted. */
  readonly chains: readonly string[];
  /** Elements (with their container) before the firewall chain is ensured. */
  readonly elementsBeforeFirewall: readonly ElementRef[];
  /** The firewall chain, when LoadBalancerSourceRanges apply. */
  readonly firewallChain: string | undefined;
  readonly elementsAfterFirewall: readonly ElementRef[];
  /** `add set` of the affinity sets (ClientIP affinity), locally reachable endpoints in order. */
  readonly affinitySets: readonly SetDecl[];
  /** Rules a changed service adds before its affinity sets: masquerade, external, firewall. */
  readonly rulesBeforeAffinitySets: readonly ChainRule[];
  /** Then the policy chains' rules and the endpoint chains' rules. */
  readonly rulesAfterAffinitySets: readonly ChainRule[];
}

export interface ChainRule {
  readonly chain: string;
  readonly rule: Rule;
}

export interface ElementRef {
  readonly set: string;
  readonly element: SetElement;
}

/** A builder that also remembers the order of elements across sets. */
class RecordingBuilder extends TableBuilder {
  readonly elementOrder: ElementRef[] = [];

  override addElement(set: string, element: SetElement): void {
    this.elementOrder.push({ set, element });
    super.addElement(set, element);
  }
}

/** The element containers kube-proxy reconciles (`nftElementStorage`), in its cleanup order. */
export const CONTAINER_NAMES: readonly (readonly [string, NamedSet["kind"]])[] = [
  [CLUSTER_IPS, "set"],
  [SERVICE_IPS, "map"],
  [FIREWALL_IPS, "map"],
  [NO_ENDPOINT_SERVICES, "map"],
  [NO_ENDPOINT_NODEPORTS, "map"],
  [SERVICE_NODEPORTS, "map"],
];

export function servicePortObjects(plan: ServicePortPlan, s: NftSettings): ServicePortObjects {
  const b = new RecordingBuilder(s.words.word, TABLE_NAME);
  for (const [name, kind] of CONTAINER_NAMES) b.addSet({ kind, name, keyType: [], flags: [] });
  addServicePort(b, plan, s);
  const t = b.build();
  const rulesOf = new Map(t.chains.map((c) => [c.name, c.rules] as const));
  const has = (name: string): boolean => rulesOf.has(name);

  const sp = plan.servicePort;
  const names = servicePortChains(sp);
  const endpointChains = plan.categorized.allReachable.map((ep) => endpointChain(sp, ep));
  const chains = [...endpointChains, names.cluster, names.local, names.external].filter(has);
  const firewallChain = has(names.firewall) ? names.firewall : undefined;

  // Elements before the firewall chain: cluster-ips, the ClusterIP's dispatch element, and
  // those of the external IPs (whose keys start with one of them).
  const externalIPs = new Set(sp.externalIPs);
  const order = b.elementOrder;
  let split = Math.min(2, order.length);
  for (let e = order[split]; e !== undefined; e = order[++split]) {
    const external = e.set === SERVICE_IPS || e.set === NO_ENDPOINT_SERVICES;
    if (!external || !externalIPs.has(e.element.key[0] ?? "")) break;
  }

  let rules: ChainRule[] = [];
  const push = (chain: string, from = 0, to?: number): void => {
    for (const rule of (rulesOf.get(chain) ?? []).slice(from, to)) rules.push({ chain, rule });
  };
  const affinity = sp.sessionAffinity.kind === "ClientIP";
  const policyRuleCount = (n: number): number => (affinity ? n : 0) + 1;
  const internalChain = sp.internalPolicyLocal ? names.local : names.cluster;
  const internalEndpoints = sp.internalPolicyLocal
    ? plan.categorized.localEndpoints
    : plan.categorized.clusterEndpoints;
  // The internal chain's masquerade rule is added first; the chain's other rules come with
  // the policy chains.
  const masqueradeRules = Math.max(
    0,
    (rulesOf.get(internalChain)?.length ?? 0) - policyRuleCount(internalEndpoints.length),
  );
  push(internalChain, 0, masqueradeRules);
  push(names.external);
  if (firewallChain !== undefined) push(firewallChain);
  const rulesBeforeAffinitySets = rules;
  rules = [];
  push(names.cluster, names.cluster === internalChain ? masqueradeRules : 0);
  push(names.local, names.local === internalChain ? masqueradeRules : 0);
  for (const chain of endpointChains) push(chain);

  const affinitySets = t.sets.filter((x) => x.name.startsWith("affinity-")).map(decl);
  return {
    chains,
    elementsBeforeFirewall: order.slice(0, split),
    firewallChain,
    elementsAfterFirewall: order.slice(split),
    affinitySets,
    rulesBeforeAffinitySets,
    rulesAfterAffinitySets: rules,
  };
}
