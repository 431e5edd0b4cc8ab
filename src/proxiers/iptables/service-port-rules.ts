/**
 * The rules of one service port (spec §4.2–§4.9), in the order kube-proxy writes them: ClusterIP
 * capture, externalIPs, LoadBalancer VIPs, NodePort and health check, then the per-service
 * chains (internal masquerade, EXT, FW, SVC, SVL, SEP).
 */
import { ifLocalArgs, ifNotLocalArgs } from "../common/local-detector.js";
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
import { commentArgs, RestoreBuffers, type RestoreSection } from "./restore-buffers.js";

export interface RuleEnvironment {
  readonly settings: ProxierSettings;
  /** Comments dropped from SEP and SVC/SVL→SEP rules (> 1000 endpoints). */
  readonly largeClusterMode: boolean;
  /** nfacct counter `localhost_nps_accepted_pkts` exists. */
  readonly localhostNodePortCounter: boolean;
}

const LOCALHOST_NODEPORT_COUNTER = "localhost_nps_accepted_pkts";
export { LOCALHOST_NODEPORT_COUNTER };

function verdictTarget(v: NoEndpointsVerdict): string {
  return v === "reject" ? "REJECT" : "DROP";
}
function verdictComment(name: string, v: NoEndpointsVerdict): string {
  return v === "reject" ? `${name} has no endpoints` : `${name} has no local endpoints`;
}

export function writeServicePortRules(
  buf: RestoreBuffers,
  plan: ServicePortPlan,
  env: RuleEnvironment,
): void {
  const sp = plan.servicePort;
  const { settings } = env;
  const P = sp.lowerProtocol;
  const proto = `-m ${P} -p ${P}`;
  const NAME = sp.name;
  const chains = servicePortChains(sp);
  const internalChain = sp.internalPolicyLocal ? chains.svl : chains.svc;
  const externalPolicyChain = sp.externalPolicyLocal ? chains.svl : chains.svc;
  const lbChain = plan.usesFirewall ? chains.fw : chains.ext;
  const internalVerdict = plan.internalVerdict;
  const externalVerdict = plan.externalVerdict;
  const nat = buf.natRules;
  const filter = buf.filterRules;
  const sepNames = new Map<string, string>();
  const sepOf = (ep: Endpoint): string => {
    let name = sepNames.get(ep.endpoint);
    if (name === undefined) {
      name = endpointChain(sp, ep);
      sepNames.set(ep.endpoint, name);
    }
    return name;
  };

  // ClusterIP capture.
  if (internalVerdict === undefined) {
    nat.push(
      `-A ${KUBE_SERVICES} ${commentArgs(`${NAME} cluster IP`)} ${proto} -d ${sp.clusterIP} --dport ${sp.port} -j ${internalChain}`,
    );
  } else {
    filter.push(
      `-A ${KUBE_SERVICES} ${commentArgs(verdictComment(NAME, internalVerdict))} ${proto} -d ${sp.clusterIP} --dport ${sp.port} -j ${verdictTarget(internalVerdict)}`,
    );
  }

  // externalIPs.
  for (const ip of sp.externalIPs) {
    if (plan.hasEndpoints) {
      nat.push(
        `-A ${KUBE_SERVICES} ${commentArgs(`${NAME} external IP`)} ${proto} -d ${ip} --dport ${sp.port} -j ${chains.ext}`,
      );
    }
    if (externalVerdict !== undefined) {
      filter.push(
        `-A ${KUBE_EXTERNAL_SERVICES} ${commentArgs(verdictComment(NAME, externalVerdict))} ${proto} -d ${ip} --dport ${sp.port} -j ${verdictTarget(externalVerdict)}`,
      );
    }
  }

  // LoadBalancer VIPs.
  for (const ip of sp.loadBalancerVIPs) {
    if (plan.hasEndpoints) {
      nat.push(
        `-A ${KUBE_SERVICES} ${commentArgs(`${NAME} loadbalancer IP`)} ${proto} -d ${ip} --dport ${sp.port} -j ${lbChain}`,
      );
    }
    if (plan.usesFirewall) {
      filter.push(
        `-A ${KUBE_PROXY_FIREWALL} ${commentArgs(`${NAME} traffic not accepted by ${chains.fw}`)} ${proto} -d ${ip} --dport ${sp.port} -j DROP`,
      );
    }
  }
  if (externalVerdict !== undefined) {
    for (const ip of sp.loadBalancerVIPs) {
      filter.push(
        `-A ${KUBE_EXTERNAL_SERVICES} ${commentArgs(verdictComment(NAME, externalVerdict))} ${proto} -d ${ip} --dport ${sp.port} -j ${verdictTarget(externalVerdict)}`,
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
        nat.push(
          `-A ${KUBE_NODEPORTS} ${commentArgs(NAME)} ${proto} -d 127.0.0.0/8 --dport ${sp.nodePort} -m nfacct --nfacct-name ${LOCALHOST_NODEPORT_COUNTER} -j ${chains.ext}`,
        );
      }
      nat.push(
        `-A ${KUBE_NODEPORTS} ${commentArgs(NAME)} ${proto} --dport ${sp.nodePort} -j ${chains.ext}`,
      );
    }
    if (externalVerdict !== undefined) {
      filter.push(
        `-A ${KUBE_EXTERNAL_SERVICES} ${commentArgs(verdictComment(NAME, externalVerdict))} -m addrtype --dst-type LOCAL ${proto} --dport ${sp.nodePort} -j ${verdictTarget(externalVerdict)}`,
      );
    }
  }

  // Health-check node port (always TCP), whatever the endpoints.
  if (sp.healthCheckNodePort !== 0) {
    filter.push(
      `-A ${KUBE_NODEPORTS} ${commentArgs(`${NAME} health check node port`)} -m tcp -p tcp --dport ${sp.healthCheckNodePort} -j ACCEPT`,
    );
  }

  // Internal (ClusterIP) masquerade, first rule of the internal chain.
  if (internalVerdict === undefined) {
    const args = `${commentArgs(`${NAME} cluster IP`)} ${proto} -d ${sp.clusterIP} --dport ${sp.port}`;
    if (settings.masqueradeAll) {
      nat.push(`-A ${internalChain} ${args} -j ${KUBE_MARK_MASQ}`);
    } else if (settings.localDetector.kind !== "none") {
      nat.push(
        `-A ${internalChain} ${args} ${ifNotLocalArgs(settings.localDetector).join(" ")} -j ${KUBE_MARK_MASQ}`,
      );
    }
  }

  // EXT chain.
  if (plan.usesExternalEntry) {
    buf.natChains.push(RestoreBuffers.chainLine(chains.ext));
    if (!sp.externalPolicyLocal) {
      nat.push(
        `-A ${chains.ext} ${commentArgs(`masquerade traffic for ${NAME} external destinations`)} -j ${KUBE_MARK_MASQ}`,
      );
    } else {
      if (settings.localDetector.kind !== "none") {
        nat.push(
          `-A ${chains.ext} ${commentArgs(`pod traffic for ${NAME} external destinations`)} ${ifLocalArgs(settings.localDetector).join(" ")} -j ${chains.svc}`,
        );
      }
      nat.push(
        `-A ${chains.ext} ${commentArgs(`masquerade LOCAL traffic for ${NAME} external destinations`)} -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`,
      );
      nat.push(
        `-A ${chains.ext} ${commentArgs(`route LOCAL traffic for ${NAME} external destinations`)} -m addrtype --src-type LOCAL -j ${chains.svc}`,
      );
    }
    if (plan.hasExternalEndpoints) nat.push(`-A ${chains.ext} -j ${externalPolicyChain}`);
  }

  // FW chain.
  if (plan.usesFirewall) {
    buf.natChains.push(RestoreBuffers.chainLine(chains.fw));
    const pre = `-A ${chains.fw} ${commentArgs(`${NAME} loadbalancer IP`)}`;
    for (const cidr of sp.loadBalancerSourceRanges) nat.push(`${pre} -s ${cidr} -j ${chains.ext}`);
    if (plan.allowFromNode) {
      for (const ip of sp.loadBalancerVIPs) nat.push(`${pre} -s ${ip} -j ${chains.ext}`);
    }
    nat.push(
      `-A ${chains.fw} ${commentArgs(`other traffic to ${NAME} will be dropped by ${KUBE_PROXY_FIREWALL}`)}`,
    );
  }

  if (plan.usesClusterPolicy) {
    buf.natChains.push(RestoreBuffers.chainLine(chains.svc));
    writeEndpointDispatch(nat, plan, chains.svc, plan.categorized.clusterEndpoints, env, sepOf);
  }
  if (plan.usesLocalPolicy) {
    buf.natChains.push(RestoreBuffers.chainLine(chains.svl));
    writeEndpointDispatch(nat, plan, chains.svl, plan.categorized.localEndpoints, env, sepOf);
  }

  // One chain per reachable endpoint.
  const sepComment = env.largeClusterMode ? "" : ` ${commentArgs(NAME)}`;
  const sepTail = ` ${proto} -j DNAT --to-destination `;
  const affinity = sp.sessionAffinity.kind === "ClientIP";
  for (const ep of plan.categorized.allReachable) {
    const sep = sepOf(ep);
    buf.natChains.push(RestoreBuffers.chainLine(sep));
    nat.push(`-A ${sep}${sepComment} -s ${ep.ip} -j ${KUBE_MARK_MASQ}`);
    const recent = affinity ? ` -m recent --name ${sep} --set` : "";
    nat.push(`-A ${sep}${sepComment}${recent}${sepTail}${ep.endpoint}`);
  }
}

function writeEndpointDispatch(
  nat: RestoreSection,
  plan: ServicePortPlan,
  chain: string,
  endpoints: readonly Endpoint[],
  env: RuleEnvironment,
  sepOf: (ep: Endpoint) => string,
): void {
  const sp = plan.servicePort;
  // `NAME -> ENDPOINT` always holds a space, so it is always quoted (see quoteComment).
  const comment = (ep: Endpoint): string =>
    env.largeClusterMode ? "" : ` -m comment --comment "${sp.name} -> ${ep.endpoint}"`;
  if (sp.sessionAffinity.kind === "ClientIP") {
    const check = ` --rcheck --seconds ${sp.sessionAffinity.timeoutSeconds} --reap -j `;
    for (const ep of endpoints) {
      const sep = sepOf(ep);
      nat.push(`-A ${chain}${comment(ep)} -m recent --name ${sep}${check}${sep}`);
    }
  }
  const n = endpoints.length;
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i] as Endpoint;
    const statistic =
      i < n - 1 ? ` -m statistic --mode random --probability ${endpointProbability(n - i)}` : "";
    nat.push(`-A ${chain}${comment(ep)}${statistic} -j ${sepOf(ep)}`);
  }
}
