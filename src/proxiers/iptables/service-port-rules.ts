/**
 * The rules of one service port (spec §4.2–§4.9), in the order kube-proxy writes them: ClusterIP
 * capture, externalIPs, LoadBalancer VIPs, NodePort and health check, then the per-service
 * chains (internal masquerade, EXT, FW, SVC, SVL, SEP). Rules are built as data (netfilter/build)
 * with kube-proxy's own argument order, which the restore text prints.
 */
import type { RuleBuilder } from "../../netfilter/build/rule-builder.js";
import type { TableBuilder } from "../../netfilter/build/rule-set-builder.js";
import { fromLocal } from "../common/local-detector.js";
import type { ServicePortPlan, NoEndpointsVerdict } from "../common/plan.js";
import type { ProxierSettings } from "../common/proxier-settings.js";
import type { Endpoint } from "../common/endpoint.js";
import {
  endpointChain,
  KUBE_EXTERNAL_SERVICES,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  servicePortChains,
} from "./chain-names.js";
import { endpointProbability } from "./probability.js";

export interface RuleEnvironment {
  readonly settings: ProxierSettings;
  /** Comments dropped from SEP and SVC/SVL→SEP rules (> 1000 endpoints). */
  readonly largeClusterMode: boolean;
  /** nfacct counter `localhost_nps_accepted_pkts` exists. */
  readonly localhostNodePortCounter: boolean;
}

const LOCALHOST_NODEPORT_COUNTER = "localhost_nps_accepted_pkts";
export { LOCALHOST_NODEPORT_COUNTER };

function writeVerdict(rule: RuleBuilder, v: NoEndpointsVerdict): void {
  if (v === "reject") rule.reject();
  else rule.verdict("DROP");
}
function verdictComment(name: string, v: NoEndpointsVerdict): string {
  return v === "reject" ? `${name} has no endpoints` : `${name} has no local endpoints`;
}

/** The filter and nat tables a service port's rules go to. */
export interface ProxierTables {
  readonly filter: TableBuilder;
  readonly nat: TableBuilder;
}

export function writeServicePortRules(
  tables: ProxierTables,
  plan: ServicePortPlan,
  env: RuleEnvironment,
): void {
  const sp = plan.servicePort;
  const { settings } = env;
  const { nat, filter } = tables;
  const P = sp.lowerProtocol;
  const NAME = sp.name;
  const chains = servicePortChains(sp);
  const internalChain = sp.internalPolicyLocal ? chains.svl : chains.svc;
  const externalPolicyChain = sp.externalPolicyLocal ? chains.svl : chains.svc;
  const lbChain = plan.usesFirewall ? chains.fw : chains.ext;
  const internalVerdict = plan.internalVerdict;
  const externalVerdict = plan.externalVerdict;
  const seps = endpointChains(sp, plan.categorized.allReachable);
  /** `-A CHAIN -m comment --comment TEXT -m P -p P -d IP --dport PORT`. */
  const toPort = (t: TableBuilder, chain: string, comment: string, ip: string, port: number) =>
    t.append(chain).comment(comment).protocolMatch(P).destination(ip).dport(port);

  // ClusterIP capture.
  if (internalVerdict === undefined) {
    toPort(nat, KUBE_SERVICES, `${NAME} cluster IP`, sp.clusterIP, sp.port).jump(internalChain);
  } else {
    writeVerdict(
      toPort(filter, KUBE_SERVICES, verdictComment(NAME, internalVerdict), sp.clusterIP, sp.port),
      internalVerdict,
    );
  }

  // externalIPs.
  for (const ip of sp.externalIPs) {
    if (plan.hasEndpoints)
      toPort(nat, KUBE_SERVICES, `${NAME} external IP`, ip, sp.port).jump(chains.ext);
    if (externalVerdict !== undefined) {
      writeVerdict(
        toPort(filter, KUBE_EXTERNAL_SERVICES, verdictComment(NAME, externalVerdict), ip, sp.port),
        externalVerdict,
      );
    }
  }

  // LoadBalancer VIPs.
  for (const ip of sp.loadBalancerVIPs) {
    if (plan.hasEndpoints)
      toPort(nat, KUBE_SERVICES, `${NAME} loadbalancer IP`, ip, sp.port).jump(lbChain);
    if (plan.usesFirewall) {
      toPort(
        filter,
        KUBE_PROXY_FIREWALL,
        `${NAME} traffic not accepted by ${chains.fw}`,
        ip,
        sp.port,
      ).verdict("DROP");
    }
  }
  if (externalVerdict !== undefined) {
    for (const ip of sp.loadBalancerVIPs) {
      writeVerdict(
        toPort(filter, KUBE_EXTERNAL_SERVICES, verdictComment(NAME, externalVerdict), ip, sp.port),
        externalVerdict,
      );
    }
  }

  // NodePort.
  if (sp.nodePort !== 0) {
    if (plan.hasEndpoints) {
      if (
        settings.family === "IPv4" &&
        settings.localhostNodePorts &&
        env.localhostNodePortCounter
      ) {
        toPort(nat, KUBE_NODEPORTS, NAME, "127.0.0.0/8", sp.nodePort)
          .nfacct(LOCALHOST_NODEPORT_COUNTER)
          .jump(chains.ext);
      }
      nat.append(KUBE_NODEPORTS).comment(NAME).protocolMatch(P).dport(sp.nodePort).jump(chains.ext);
    }
    if (externalVerdict !== undefined) {
      writeVerdict(
        filter
          .append(KUBE_EXTERNAL_SERVICES)
          .comment(verdictComment(NAME, externalVerdict))
          .addrtype("dst", "LOCAL")
          .protocolMatch(P)
          .dport(sp.nodePort),
        externalVerdict,
      );
    }
  }

  // Health-check node port (always TCP), whatever the endpoints.
  if (sp.healthCheckNodePort !== 0) {
    filter
      .append(KUBE_NODEPORTS)
      .comment(`${NAME} health check node port`)
      .protocolMatch("tcp")
      .dport(sp.healthCheckNodePort)
      .verdict("ACCEPT");
  }

  // Internal (ClusterIP) masquerade, first rule of the internal chain.
  if (internalVerdict === undefined) {
    if (settings.masqueradeAll) {
      toPort(nat, internalChain, `${NAME} cluster IP`, sp.clusterIP, sp.port).jump(KUBE_MARK_MASQ);
    } else if (settings.localDetector.kind !== "none") {
      fromLocal(
        toPort(nat, internalChain, `${NAME} cluster IP`, sp.clusterIP, sp.port),
        settings.localDetector,
        true,
      ).jump(KUBE_MARK_MASQ);
    }
  }

  // EXT chain.
  if (plan.usesExternalEntry) {
    nat.declare(chains.ext);
    if (!sp.externalPolicyLocal) {
      nat
        .append(chains.ext)
        .comment(`masquerade traffic for ${NAME} external destinations`)
        .jump(KUBE_MARK_MASQ);
    } else {
      if (settings.localDetector.kind !== "none") {
        fromLocal(
          nat.append(chains.ext).comment(`pod traffic for ${NAME} external destinations`),
          settings.localDetector,
        ).jump(chains.svc);
      }
      nat
        .append(chains.ext)
        .comment(`masquerade LOCAL traffic for ${NAME} external destinations`)
        .addrtype("src", "LOCAL")
        .jump(KUBE_MARK_MASQ);
      nat
        .append(chains.ext)
        .comment(`route LOCAL traffic for ${NAME} external destinations`)
        .addrtype("src", "LOCAL")
        .jump(chains.svc);
    }
    if (plan.hasExternalEndpoints) nat.append(chains.ext).jump(externalPolicyChain);
  }

  // FW chain.
  if (plan.usesFirewall) {
    nat.declare(chains.fw);
    const fw = () => nat.append(chains.fw).comment(`${NAME} loadbalancer IP`);
    for (const cidr of sp.loadBalancerSourceRanges) fw().source(cidr).jump(chains.ext);
    if (plan.allowFromNode) {
      for (const ip of sp.loadBalancerVIPs) fw().source(ip).jump(chains.ext);
    }
    nat
      .append(chains.fw)
      .comment(`other traffic to ${NAME} will be dropped by ${KUBE_PROXY_FIREWALL}`)
      .end();
  }

  if (plan.usesClusterPolicy) {
    nat.declare(chains.svc);
    writeEndpointDispatch(nat, plan, chains.svc, plan.categorized.clusterEndpoints, env, seps);
  }
  if (plan.usesLocalPolicy) {
    nat.declare(chains.svl);
    writeEndpointDispatch(nat, plan, chains.svl, plan.categorized.localEndpoints, env, seps);
  }

  // One chain per reachable endpoint.
  const affinity = sp.sessionAffinity.kind === "ClientIP";
  const reachable = plan.categorized.allReachable;
  // No closure or other object per endpoint (100,000 of them in a large cluster).
  const commented = !env.largeClusterMode;
  for (let i = 0; i < reachable.length; i++) {
    const ep = reachable[i] as Endpoint;
    const sep = seps[i] as string;
    nat.declare(sep);
    const masq = nat.append(sep);
    if (commented) masq.comment(NAME);
    masq.source(ep.ip).jump(KUBE_MARK_MASQ);
    const dnat = nat.append(sep);
    if (commented) dnat.comment(NAME);
    if (affinity) dnat.recentSet(sep);
    dnat.protocolMatch(P).dnat(ep.ip, ep.port);
  }
}

/** The KUBE-SEP chain of each endpoint of `reachable` (the plan's `allReachable`), in order. */
function endpointChains(sp: ServicePortPlan["servicePort"], reachable: readonly Endpoint[]) {
  const names = new Array<string>(reachable.length);
  for (let i = 0; i < reachable.length; i++) names[i] = endpointChain(sp, reachable[i] as Endpoint);
  return names;
}

/**
 * The KUBE-SEP chains of `endpoints`, a sorted subset of the plan's `allReachable` (whose chains
 * are `seps`): looked up by walking both lists, named again only for an endpoint not found.
 */
class SepCursor {
  #at = 0;
  constructor(
    private readonly sp: ServicePortPlan["servicePort"],
    private readonly reachable: readonly Endpoint[],
    private readonly seps: readonly string[],
  ) {}

  of(ep: Endpoint): string {
    const all = this.reachable;
    let at = this.#at;
    while (at < all.length && all[at] !== ep) at++;
    if (at === all.length) return endpointChain(this.sp, ep);
    this.#at = at + 1;
    return this.seps[at] as string;
  }
}

function writeEndpointDispatch(
  nat: TableBuilder,
  plan: ServicePortPlan,
  chain: string,
  endpoints: readonly Endpoint[],
  env: RuleEnvironment,
  seps: readonly string[],
): void {
  const sp = plan.servicePort;
  const reachable = plan.categorized.allReachable;
  const commented = !env.largeClusterMode;
  const n = endpoints.length;
  if (sp.sessionAffinity.kind === "ClientIP") {
    const seconds = sp.sessionAffinity.timeoutSeconds;
    const sepOf = new SepCursor(sp, reachable, seps);
    for (let i = 0; i < n; i++) {
      const ep = endpoints[i] as Endpoint;
      const sep = sepOf.of(ep);
      dispatchRule(nat, chain, commented, sp, ep).recentCheck(sep, seconds).jump(sep);
    }
  }
  const sepOf = new SepCursor(sp, reachable, seps);
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i] as Endpoint;
    const r = dispatchRule(nat, chain, commented, sp, ep);
    if (i < n - 1) r.probability(endpointProbability(n - i));
    r.jump(sepOf.of(ep));
  }
}

/** `-A CHAIN [-m comment --comment "NAME -> ENDPOINT"]`: a dispatch rule to one endpoint. */
function dispatchRule(
  nat: TableBuilder,
  chain: string,
  commented: boolean,
  sp: ServicePortPlan["servicePort"],
  ep: Endpoint,
): RuleBuilder {
  const rule = nat.append(chain);
  return commented ? rule.comment(`${sp.name} -> ${ep.endpoint}`) : rule;
}
