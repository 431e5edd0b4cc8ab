/**
 * The local-traffic detector (spec §5.9): how kube-proxy tells traffic from this node's pods
 * apart from everything else. It is used in exactly two places, the ClusterIP masquerade rule
 * ("not local") and the externalTrafficPolicy=Local pod short-circuit ("local").
 */
import { formatCIDRAsWritten, type IPFamily } from "../../net/index.js";
import type { Node } from "../../model/kinds.js";
import type { RuleBuilder } from "../../netfilter/build/rule-builder.js";
import type { KubeProxyConfiguration } from "../../model/proxy-config.js";
import { parseCIDRSloppy } from "./service-port.js";

export type LocalDetector =
  | { readonly kind: "none" }
  | { readonly kind: "cidr"; readonly cidr: string }
  | { readonly kind: "interface"; readonly name: string }
  | { readonly kind: "interface-prefix"; readonly prefix: string };

function firstCIDROfFamily(list: readonly string[], family: IPFamily): string | undefined {
  for (const s of list) {
    const c = parseCIDRSloppy(s.trim());
    // kube-proxy prints the CIDR as configured (net.IPNet keeps the masked network).
    if (c !== undefined && c.family === family)
      return formatCIDRAsWritten({ ...c, address: c.network });
  }
  return undefined;
}

/** The detector kube-proxy builds for `family` from its configuration and Node object. */
export function localDetectorFor(
  config: KubeProxyConfiguration,
  family: IPFamily,
  node: Node | undefined,
): LocalDetector {
  const mode = config.detectLocalMode === "" ? "ClusterCIDR" : config.detectLocalMode;
  switch (mode) {
    case "ClusterCIDR": {
      const cidr = firstCIDROfFamily(config.clusterCIDR.split(","), family);
      return cidr === undefined ? { kind: "none" } : { kind: "cidr", cidr };
    }
    case "NodeCIDR": {
      const podCIDRs = node?.spec?.podCIDRs ?? (node?.spec?.podCIDR ? [node.spec.podCIDR] : []);
      const cidr = firstCIDROfFamily(podCIDRs, family);
      return cidr === undefined ? { kind: "none" } : { kind: "cidr", cidr };
    }
    case "BridgeInterface":
      return config.detectLocal.bridgeInterface === ""
        ? { kind: "none" }
        : { kind: "interface", name: config.detectLocal.bridgeInterface };
    case "InterfaceNamePrefix":
      return config.detectLocal.interfaceNamePrefix === ""
        ? { kind: "none" }
        : { kind: "interface-prefix", prefix: config.detectLocal.interfaceNamePrefix };
  }
}

/** iptables arguments matching traffic from local pods (empty for `none`). */
export function ifLocalArgs(d: LocalDetector): readonly string[] {
  switch (d.kind) {
    case "none":
      return [];
    case "cidr":
      return ["-s", d.cidr];
    case "interface":
      return ["-i", d.name];
    case "interface-prefix":
      return ["-i", `${d.prefix}+`];
  }
}

/** iptables arguments matching traffic not from local pods (empty for `none`). */
export function ifNotLocalArgs(d: LocalDetector): readonly string[] {
  return ifLocalArgs(d).length === 0 ? [] : ["!", ...ifLocalArgs(d)];
}

/** Adds the detector's condition to a rule: traffic from local pods, or (`negated`) not. */
export function fromLocal(rule: RuleBuilder, d: LocalDetector, negated = false): RuleBuilder {
  switch (d.kind) {
    case "none":
      return rule;
    case "cidr":
      return rule.source(d.cidr, negated);
    case "interface":
      return rule.inInterface(d.name, negated);
    case "interface-prefix":
      return rule.inInterface(`${d.prefix}+`, negated);
  }
}
