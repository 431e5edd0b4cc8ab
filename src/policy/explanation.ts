/**
 * Explanations as data: for each direction, which policies select the subject, which rule, peer
 * and port matched (or why none did), and which tier decided. `explanation-text.ts` renders them.
 */
import type { Protocol } from "../net/port.js";
import type { AdminAction, AdminLevel, AdminTier, Direction } from "./compiled.js";
import type { Verdict } from "./verdict3.js";

/** Which entry of a rule's peer or port list matched; `"all"` when the list is empty/missing. */
export type EntryMatch =
  | { readonly matched: true; readonly index: number | "all" }
  | { readonly matched: false; readonly reason: string };

export interface RuleTrace {
  readonly index: number;
  readonly name?: string;
  readonly action?: AdminAction;
  readonly matched: boolean;
  readonly peer: EntryMatch;
  /** Absent when the peer did not match (ports are not looked at then). */
  readonly port?: EntryMatch;
}

export interface NetworkPolicyTrace {
  /** `ns/name` */
  readonly policy: string;
  readonly rules: readonly RuleTrace[];
}

export interface AdminPolicyTrace {
  /** The policy's kind (AdminNetworkPolicy, BaselineAdminNetworkPolicy, ClusterNetworkPolicy). */
  readonly tier: AdminTier;
  /** ClusterNetworkPolicy only: its `spec.tier`. */
  readonly level?: AdminLevel;
  readonly policy: string;
  readonly priority?: number;
  /** The rules looked at, in order, up to the first match. */
  readonly rules: readonly RuleTrace[];
}

export type Decision =
  /** The subject is not a pod that policies can select (external IP, node, hostNetwork pod). */
  | { readonly kind: "not-a-subject"; readonly reason: string }
  | { readonly kind: "loopback" }
  | { readonly kind: "local-node"; readonly node: string }
  | {
      readonly kind: "admin-rule";
      readonly tier: AdminTier;
      /** ClusterNetworkPolicy only: its `spec.tier`. */
      readonly level?: AdminLevel;
      readonly policy: string;
      readonly priority?: number;
      readonly rule: number;
      readonly ruleName?: string;
      readonly action: "Allow" | "Accept" | "Deny";
    }
  /** The verdict depends on domainNames peers that cannot be resolved offline. */
  | { readonly kind: "undecidable"; readonly rules: readonly UndecidedRuleRef[] }
  | { readonly kind: "networkpolicy-allow"; readonly policy: string; readonly rule: number }
  | { readonly kind: "networkpolicy-deny"; readonly policies: readonly string[] }
  | { readonly kind: "default-allow" };

/** A rule whose match could not be decided (unresolved domainNames) and that the verdict hinges on. */
export interface UndecidedRuleRef {
  readonly tier: AdminTier;
  readonly level: AdminLevel;
  readonly policy: string;
  readonly priority?: number;
  readonly rule: number;
  readonly ruleName?: string;
  readonly action: AdminAction;
  /** The names without a resolution (no `--dns-map` entry). */
  readonly names: readonly string[];
}

export interface PassTrace {
  /** ClusterNetworkPolicy only (ANP Pass traces keep their v1alpha1 shape). */
  readonly tier?: AdminTier;
  readonly level?: AdminLevel;
  readonly policy: string;
  readonly priority?: number;
  readonly rule: number;
  readonly ruleName?: string;
}

export interface DirectionExplanation {
  readonly direction: Direction;
  /** `ns/pod` or an IP. */
  readonly subject: string;
  readonly peer: string;
  /** `verdict === "allowed"`. */
  readonly allowed: boolean;
  readonly verdict: Verdict;
  readonly decision: Decision;
  /** Set when an Admin-tier rule (ANP or CNP) passed the decision on to NetworkPolicy/Baseline. */
  readonly passed?: PassTrace;
  /** Set when a Baseline CNP rule passed the decision on to the default (allow). */
  readonly baselinePassed?: PassTrace;
  /** Whether NetworkPolicies isolate the subject for this direction. */
  readonly isolated: boolean;
  /** Every policy that selects the subject for this direction, per tier, in evaluation order. */
  readonly selectedBy: {
    readonly adminNetworkPolicies: readonly string[];
    readonly networkPolicies: readonly string[];
    readonly baselineAdminNetworkPolicies: readonly string[];
  };
  readonly adminPolicies: readonly AdminPolicyTrace[];
  readonly networkPolicies: readonly NetworkPolicyTrace[];
  readonly baselinePolicies: readonly AdminPolicyTrace[];
}

/** Implementation-defined choices (spec §1.8) that this verdict depended on. */
export type ChoiceKind =
  | "loopback"
  | "local-node"
  | "host-network"
  | "ip-block-pod-ip"
  | "equal-anp-priority"
  | "api-tie"
  | "domain-names"
  | "duplicate-port-name"
  | "pod-without-ip"
  | "ip-is-pod"
  | "no-common-family";

export interface ImplementationChoice {
  readonly kind: ChoiceKind;
  /** The option that controls it, if any (see PolicyOptions). */
  readonly option?: string;
  readonly message: string;
}

export interface PolicyExplanation {
  readonly from: string;
  readonly to: string;
  readonly port: number;
  readonly protocol: Protocol;
  /** `verdict === "allowed"` ("unknown" counts as not allowed here: read `verdict`). */
  readonly allowed: boolean;
  readonly verdict: Verdict;
  readonly egress: DirectionExplanation;
  readonly ingress: DirectionExplanation;
  readonly choices: readonly ImplementationChoice[];
}
