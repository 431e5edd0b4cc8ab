/**
 * One per-family proxier's iptables-restore input (spec §2.1, §4.10): fixed chains and rules,
 * then every service port's rules, then the NodePort tail of nat KUBE-SERVICES. Service ports
 * are rendered in `compareServicePorts` order (kube-proxy's Go-map order is random; any order is
 * equally faithful, and a fixed one makes output deterministic).
 */
import { isLoopbackIP } from "../common/node-port-addresses.js";
import { planAsSource, type FamilyPlan, type FamilyPlanSource } from "../common/plan.js";
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
import { RuleSetBuilder, type SpilledText } from "../../netfilter/build/rule-set-builder.js";
import type { RuleSet } from "../../netfilter/model.js";
import {
  writeForwardAcceptRules,
  writeMasqueradeRules,
  type MasqueradeMark,
} from "../common/shared-rules.js";
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
  return writeRuleSet(plan, opts).restore();
}

/**
 * kube-proxy's restore input as a rule set: filter then nat, each with its chain declarations
 * and rules in the order kube-proxy writes them (see netfilter/build), built-in chains empty.
 */
export function renderRuleSet(plan: FamilyPlan, opts: RestoreOptions = {}): RuleSet {
  return writeRuleSet(plan, opts).build();
}

/**
 * kube-proxy's restore input written into a rule set builder: its `restore()` prints the text
 * and its `build()` makes the rule set, each when asked (`clauses` false: text only, no `build`;
 * `spill`: a large table's lines are kept there, not in memory).
 */
export function writeRuleSet(
  plan: FamilyPlan,
  opts: RestoreOptions = {},
  clauses = true,
  /** Text only: where a large table's rule lines go until printed (see RuleSetBuilder). */
  spill?: () => SpilledText,
): RuleSetBuilder {
  return writeRuleSetFrom(planAsSource(plan), opts, clauses, spill);
}

/**
 * `writeRuleSet` of a plan made one service port at a time (`familyPlanSource`): each service
 * port's rules are written as it is planned, so no plan of the whole cluster is kept.
 *
 * Large-cluster mode (no per-endpoint comments) depends on the total endpoint count, known only
 * once every service port is planned: the rules are written for the source's bound (which is at
 * least the count), and written again in the other mode when the count says otherwise. That can
 * only happen at 1,000 endpoints or fewer, with duplicate endpoints or those of another family
 * in the bound, where writing twice is cheap.
 */
export function writeRuleSetFrom(
  source: FamilyPlanSource,
  opts: RestoreOptions = {},
  clauses = true,
  spill?: () => SpilledText,
): RuleSetBuilder {
  const guess = opts.largeClusterMode ?? source.endpointBound > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  const first = writeInMode(source, opts, guess, clauses, spill);
  if (opts.largeClusterMode !== undefined) return first.builder;
  const large = first.totalEndpoints > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  return large === guess ? first.builder : writeInMode(source, opts, large, clauses, spill).builder;
}

function writeInMode(
  plan: FamilyPlanSource,
  opts: RestoreOptions,
  largeClusterMode: boolean,
  clauses: boolean,
  spill: (() => SpilledText) | undefined,
): { readonly builder: RuleSetBuilder; readonly totalEndpoints: number } {
  const { settings } = plan;
  const kernel = settings.nodeEnvironment.kernel;
  const isIPv6 = settings.family === "IPv6";
  const mark: MasqueradeMark = {
    value: settings.masqueradeMark,
    spelled: formatMark(settings.masqueradeMark, opts.masqueradeMarkFormat ?? "short"),
  };
  // At most: the fixed chains, four per service port (SVC, SVL, EXT, FW), one per endpoint.
  const expectedChains = 8 + 4 * plan.servicePortCount + plan.endpointBound;
  const builder = new RuleSetBuilder(settings.family, {
    clauses,
    expectedChains,
    ...(spill === undefined ? {} : { spill }),
  });
  const filter = builder.table("filter");
  const nat = builder.table("nat");

  for (const c of [
    KUBE_SERVICES,
    KUBE_EXTERNAL_SERVICES,
    KUBE_FORWARD,
    KUBE_NODEPORTS,
    KUBE_PROXY_FIREWALL,
  ]) {
    filter.declare(c);
  }
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) {
    nat.declare(c);
  }

  writeMasqueradeRules(nat, mark, kernel.iptablesRandomFully);

  if (!isIPv6 && settings.localhostNodePorts) {
    // route_localnet makes 127/8 NodePorts work and opens a hole this rule closes (#90259).
    filter.declare(KUBE_FIREWALL);
    filter
      .append(KUBE_FIREWALL)
      .comment("block incoming localnet connections")
      .destination("127.0.0.0/8")
      .source("127.0.0.0/8", true)
      .ctstate(["RELATED", "ESTABLISHED", "DNAT"], true)
      .verdict("DROP");
  }

  const env = {
    settings,
    largeClusterMode,
    localhostNodePortCounter: kernel.nfacct.includes(LOCALHOST_NODEPORT_COUNTER),
  };
  const tables = { filter, nat };
  const totalEndpoints = plan.forEach((sp) => writeServicePortRules(tables, sp, env));

  const npa = settings.nodePortAddresses;
  if (npa.kind === "all") {
    const rule = nat
      .append(KUBE_SERVICES)
      .comment(NODEPORTS_LAST_RULE_COMMENT)
      .addrtype("dst", "LOCAL");
    if (isIPv6) rule.destination("::1/128", true);
    else if (!settings.localhostNodePorts) rule.destination("127.0.0.0/8", true);
    rule.jump(KUBE_NODEPORTS);
  } else {
    for (const ip of npa.ips) {
      if (isLoopbackIP(ip) && (isIPv6 || !settings.localhostNodePorts)) continue;
      nat
        .append(KUBE_SERVICES)
        .comment(NODEPORTS_LAST_RULE_COMMENT)
        .destination(ip)
        .jump(KUBE_NODEPORTS);
    }
  }

  if (!kernel.conntrackTCPBeLiberal) {
    const rule = filter.append(KUBE_FORWARD).ctstate(["INVALID"]);
    if (kernel.nfacct.includes(INVALID_DROP_COUNTER)) rule.nfacct(INVALID_DROP_COUNTER);
    rule.verdict("DROP");
  }
  writeForwardAcceptRules(filter, mark);
  return { builder, totalEndpoints };
}
