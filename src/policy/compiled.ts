/**
 * Policies compiled into matchers (cyclonus' "compile once, evaluate many times"): every API
 * shape becomes its own matcher kind here, and evaluation never reads the raw objects again.
 */
import type { IPAddress } from "../net/address.js";
import type { CIDR } from "../net/cidr.js";
import type { Protocol } from "../net/port.js";
import type { Issue } from "../model/issue.js";
import type { CompiledSelector } from "./label-selector.js";
import type { ClusterFacts } from "./facts.js";

export type Direction = "Ingress" | "Egress";

/** A NetworkPolicy peer's namespace part: null selector = the policy's namespace. */
export type NamespaceMatcher =
  | { readonly kind: "policy-namespace"; readonly namespace: string }
  | { readonly kind: "selector"; readonly selector: CompiledSelector };

export type NetworkPolicyPeer =
  | {
      readonly kind: "pods";
      readonly index: number;
      readonly namespaces: NamespaceMatcher;
      readonly pods: CompiledSelector;
    }
  | {
      readonly kind: "ipBlock";
      readonly index: number;
      readonly cidr: CIDR | undefined;
      readonly except: readonly CIDR[];
      readonly text: string;
    }
  /** An entry with no field set: invalid in the API; matches nothing here. */
  | { readonly kind: "empty"; readonly index: number };

export type PolicyPort =
  | {
      readonly kind: "range";
      readonly index: number;
      readonly protocol: Protocol;
      readonly from: number;
      readonly to: number;
    }
  | {
      readonly kind: "named";
      readonly index: number;
      readonly protocol: Protocol;
      readonly name: string;
    }
  | { readonly kind: "protocol"; readonly index: number; readonly protocol: Protocol };

export interface NetworkPolicyRule {
  readonly index: number;
  /** `"all"`: `from`/`to` missing or empty. */
  readonly peers: readonly NetworkPolicyPeer[] | "all";
  /** `"all"`: `ports` missing or empty. */
  readonly ports: readonly PolicyPort[] | "all";
}

export interface CompiledNetworkPolicy {
  /** `ns/name` */
  readonly id: string;
  readonly namespace: string;
  readonly name: string;
  readonly podSelector: CompiledSelector;
  /** Undefined when the (defaulted) policyTypes do not include the direction. */
  readonly ingress: readonly NetworkPolicyRule[] | undefined;
  readonly egress: readonly NetworkPolicyRule[] | undefined;
  /** Rules written for a direction that policyTypes leaves out (ignored; lint warns). */
  readonly ignoredDirections: readonly Direction[];
}

export type AdminPeer =
  | { readonly kind: "namespaces"; readonly index: number; readonly namespaces: CompiledSelector }
  | {
      readonly kind: "pods";
      readonly index: number;
      readonly namespaces: CompiledSelector;
      readonly pods: CompiledSelector;
    }
  | {
      readonly kind: "nodes";
      readonly index: number;
      readonly nodes: CompiledSelector;
      /** Addresses of the nodes the selector matches (canonical text). */
      readonly addresses: ReadonlySet<string>;
    }
  | { readonly kind: "networks"; readonly index: number; readonly cidrs: readonly CIDR[] }
  /**
   * Resolved through the `dnsMap` option when every name has an entry there (`addresses`);
   * otherwise undecidable offline (`addresses` undefined): the verdict is "unknown" when it
   * depends on this peer (spec cluster-network-policy.md §2.4, O4).
   */
  | {
      readonly kind: "domainNames";
      readonly index: number;
      readonly names: readonly string[];
      readonly addresses: readonly IPAddress[] | undefined;
      /** Names without an entry in the DNS map (all of them when no map is given). */
      readonly unresolved: readonly string[];
    }
  /** No known field set: "fail closed" (Allow matches nothing, Deny/Pass match everything). */
  | { readonly kind: "unknown"; readonly index: number };

export type AdminPort =
  | {
      readonly kind: "range";
      readonly index: number;
      readonly protocol: Protocol;
      readonly from: number;
      readonly to: number;
    }
  | { readonly kind: "named"; readonly index: number; readonly name: string }
  | { readonly kind: "invalid"; readonly index: number }
  /** A CNP protocol entry with no known field in a Deny/Pass rule: fails closed (matches all). */
  | { readonly kind: "any"; readonly index: number };

/** `Allow` (v1alpha1) and `Accept` (v1alpha2) mean the same: see `isAccept`. */
export type AdminAction = "Allow" | "Accept" | "Deny" | "Pass";
/** The policy's kind (the field keeps its v1alpha1 name; see `CompiledAdminPolicy.level`). */
export type AdminTier =
  "AdminNetworkPolicy" | "BaselineAdminNetworkPolicy" | "ClusterNetworkPolicy";
/** The tier a policy sits in: ANP and Admin CNPs, or BANP and Baseline CNPs. */
export type AdminLevel = "Admin" | "Baseline";

export function isAccept(a: AdminAction): boolean {
  return a === "Allow" || a === "Accept";
}

export interface AdminRule {
  readonly index: number;
  readonly name: string | undefined;
  readonly action: AdminAction;
  readonly peers: readonly AdminPeer[];
  readonly ports: readonly AdminPort[] | "all";
}

export interface CompiledAdminPolicy {
  readonly tier: AdminTier;
  readonly level: AdminLevel;
  readonly name: string;
  /** ANP and CNP; BANP has none. */
  readonly priority: number | undefined;
  readonly subject:
    | { readonly kind: "namespaces"; readonly namespaces: CompiledSelector }
    | {
        readonly kind: "pods";
        readonly namespaces: CompiledSelector;
        readonly pods: CompiledSelector;
      };
  readonly ingress: readonly AdminRule[];
  readonly egress: readonly AdminRule[];
}

export interface CompiledPolicies {
  readonly facts: ClusterFacts;
  /** By namespace, in input order. */
  readonly networkPolicies: ReadonlyMap<string, readonly CompiledNetworkPolicy[]>;
  readonly allNetworkPolicies: readonly CompiledNetworkPolicy[];
  /**
   * ANPs and Admin-tier CNPs sorted by (priority, API, name): equal priorities are undefined
   * upstream; at equal priority a CNP comes before an ANP, then names decide (lint warns).
   */
  readonly adminPolicies: readonly CompiledAdminPolicy[];
  /** Baseline-tier CNPs by (priority, name), then the BANP (by name; the API allows `default`). */
  readonly baselinePolicies: readonly CompiledAdminPolicy[];
  /** Some domainNames peer has no resolution: verdicts may be "unknown" (see `verdict3.ts`). */
  readonly undecidable: boolean;
  /** Every CIDR any policy mentions (ipBlock cidr/except, ANP networks): IP-block classes. */
  readonly cidrs: readonly CIDR[];
  /** Problems found while compiling (the loader's validation normally catches them first). */
  readonly issues: readonly Issue[];
}
