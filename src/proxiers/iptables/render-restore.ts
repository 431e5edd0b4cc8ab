/**
 * One per-family proxier's iptables-restore input (spec §2.1, §4.10): fixed chains and rules,
 * then every service port's rules, then the NodePort tail of nat KUBE-SERVICES. Service ports
 * are rendered in `compareServicePorts` order (kube-proxy's Go-map order is random; any order is
 * equally faithful, and a fixed one makes output deterministic).
 */
import { isLoopbackIP } from "../common/node-port-addresses.js";
import type { FamilyPlan } from "../common/plan.js";
import {
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
} from "./chain-names.js";
import { commentArgs, RestoreBuffers } from "./restore-buffers.js";
import { LOCALHOST_NODEPORT_COUNTER, writeServicePortRules } from "./service-port-rules.js";

/** Above this many endpoints kube-proxy drops per-endpoint comments. */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

export const INVALID_DROP_COUNTER = "ct_state_invalid_dropped_pkts";

export type MasqueradeMarkFormat =
  /** `0x4000`: what the upstream unit tests inject, and the spec's default. */
  | "short"
  /** `0x00004000`: real kube-proxy's `%#08x`. */
  | "padded";

export interface RestoreOptions {
  readonly masqueradeMarkFormat?: MasqueradeMarkFormat;
  /** Overrides the > 1000 endpoints rule. */
  readonly largeClusterMode?: boolean;
}

export function formatMark(mark: number, format: MasqueradeMarkFormat): string {
  const hex = mark.toString(16);
  return format === "short" ? `0x${hex}` : `0x${hex.padStart(8, "0")}`;
}

export const NODEPORTS_LAST_RULE_COMMENT =
  "kubernetes service nodeports; NOTE: this must be the last rule in this chain";

export function renderRestore(plan: FamilyPlan, opts: RestoreOptions = {}): string {
  return renderRestoreSections(plan, opts).text();
}

/** The four sections of the restore input (see RestoreBuffers). */
export function renderRestoreSections(plan: FamilyPlan, opts: RestoreOptions = {}): RestoreBuffers {
  const { settings } = plan;
  const kernel = settings.nodeEnvironment.kernel;
  const isIPv6 = settings.family === "IPv6";
  const mark = formatMark(settings.masqueradeMark, opts.masqueradeMarkFormat ?? "short");
  const largeClusterMode =
    opts.largeClusterMode ?? plan.totalEndpoints > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  const buf = new RestoreBuffers();

  for (const c of [
    KUBE_SERVICES,
    KUBE_EXTERNAL_SERVICES,
    KUBE_FORWARD,
    KUBE_NODEPORTS,
    KUBE_PROXY_FIREWALL,
  ]) {
    buf.filterChains.push(RestoreBuffers.chainLine(c));
  }
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) {
    buf.natChains.push(RestoreBuffers.chainLine(c));
  }

  buf.natRules.push(`-A ${KUBE_POSTROUTING} -m mark ! --mark ${mark}/${mark} -j RETURN`);
  // Clearing the mark keeps a packet that re-traverses the stack from being masqueraded twice.
  buf.natRules.push(`-A ${KUBE_POSTROUTING} -j MARK --xor-mark ${mark}`);
  buf.natRules.push(
    `-A ${KUBE_POSTROUTING} ${commentArgs("kubernetes service traffic requiring SNAT")} -j MASQUERADE${kernel.iptablesRandomFully ? " --random-fully" : ""}`,
  );
  buf.natRules.push(`-A ${KUBE_MARK_MASQ} -j MARK --or-mark ${mark}`);

  if (!isIPv6 && settings.localhostNodePorts) {
    // route_localnet makes 127/8 NodePorts work and opens a hole this rule closes (#90259).
    buf.filterChains.push(RestoreBuffers.chainLine(KUBE_FIREWALL));
    buf.filterRules.push(
      `-A ${KUBE_FIREWALL} ${commentArgs("block incoming localnet connections")} -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
    );
  }

  const env = {
    settings,
    largeClusterMode,
    localhostNodePortCounter: kernel.nfacct.includes(LOCALHOST_NODEPORT_COUNTER),
  };
  for (const sp of plan.servicePorts) writeServicePortRules(buf, sp, env);

  const npa = settings.nodePortAddresses;
  if (npa.kind === "all") {
    const extra = isIPv6
      ? " ! -d ::1/128"
      : !settings.localhostNodePorts
        ? " ! -d 127.0.0.0/8"
        : "";
    buf.natRules.push(
      `-A ${KUBE_SERVICES} ${commentArgs(NODEPORTS_LAST_RULE_COMMENT)} -m addrtype --dst-type LOCAL${extra} -j ${KUBE_NODEPORTS}`,
    );
  } else {
    for (const ip of npa.ips) {
      if (isLoopbackIP(ip) && (isIPv6 || !settings.localhostNodePorts)) continue;
      buf.natRules.push(
        `-A ${KUBE_SERVICES} ${commentArgs(NODEPORTS_LAST_RULE_COMMENT)} -d ${ip} -j ${KUBE_NODEPORTS}`,
      );
    }
  }

  if (!kernel.conntrackTCPBeLiberal) {
    const counter = kernel.nfacct.includes(INVALID_DROP_COUNTER)
      ? ` -m nfacct --nfacct-name ${INVALID_DROP_COUNTER}`
      : "";
    buf.filterRules.push(`-A ${KUBE_FORWARD} -m conntrack --ctstate INVALID${counter} -j DROP`);
  }
  buf.filterRules.push(
    `-A ${KUBE_FORWARD} ${commentArgs("kubernetes forwarding rules")} -m mark --mark ${mark}/${mark} -j ACCEPT`,
  );
  buf.filterRules.push(
    `-A ${KUBE_FORWARD} ${commentArgs("kubernetes forwarding conntrack rule")} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
  );
  return buf;
}
