/**
 * The jumps kube-proxy inserts into the built-in chains (spec §2.2) with `iptables -I`, one at
 * a time, on full syncs. Each is prepended, so on a clean host a built-in chain holds them in
 * the reverse of the order they are ensured in. kube-proxy also creates each target chain
 * first (EnsureChain), which is why an empty KUBE-FIREWALL exists even where no rule fills it.
 */
import type { TableName } from "../../netfilter/model.js";
import {
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
} from "./chain-names.js";
import type { TableBuilder } from "../../netfilter/build/rule-set-builder.js";
import { commentArgs } from "./comments.js";

export interface BuiltinJump {
  readonly table: TableName;
  readonly chain: "INPUT" | "FORWARD" | "OUTPUT" | "PREROUTING" | "POSTROUTING";
  readonly target: string;
  readonly comment: string | undefined;
  /** Only for new connections (`-m conntrack --ctstate NEW`, before the comment). */
  readonly newOnly: boolean;
  /** The rule words after `-A CHAIN`, as kube-proxy passes them. */
  readonly rule: string;
}

const NEW = true;
const jump = (
  table: TableName,
  chain: BuiltinJump["chain"],
  target: string,
  comment: string | undefined,
  newOnly = false,
): BuiltinJump => ({
  table,
  chain,
  target,
  comment,
  newOnly,
  rule: [
    newOnly ? "-m conntrack --ctstate NEW" : "",
    comment === undefined ? "" : commentArgs(comment),
    `-j ${target}`,
  ]
    .filter((s) => s !== "")
    .join(" "),
});

/** Appends the jump `j` to its built-in chain in `table`. */
export function appendBuiltinJump(table: TableBuilder, j: BuiltinJump): void {
  const rule = table.append(j.chain);
  if (j.newOnly) rule.ctstate(["NEW"]);
  if (j.comment !== undefined) rule.comment(j.comment);
  rule.jump(j.target);
}

/** In the order kube-proxy ensures them (iptablesJumpChains, then the kubelet duplicates). */
export const ENSURED_JUMPS: readonly BuiltinJump[] = [
  jump(
    "filter",
    "INPUT",
    KUBE_EXTERNAL_SERVICES,
    "kubernetes externally-visible service portals",
    NEW,
  ),
  jump(
    "filter",
    "FORWARD",
    KUBE_EXTERNAL_SERVICES,
    "kubernetes externally-visible service portals",
    NEW,
  ),
  jump("filter", "INPUT", KUBE_NODEPORTS, "kubernetes health check service ports"),
  jump("filter", "FORWARD", KUBE_SERVICES, "kubernetes service portals", NEW),
  jump("filter", "OUTPUT", KUBE_SERVICES, "kubernetes service portals", NEW),
  jump("filter", "FORWARD", KUBE_FORWARD, "kubernetes forwarding rules"),
  jump("filter", "INPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", NEW),
  jump("filter", "OUTPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", NEW),
  jump("filter", "FORWARD", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", NEW),
  jump("nat", "OUTPUT", KUBE_SERVICES, "kubernetes service portals"),
  jump("nat", "PREROUTING", KUBE_SERVICES, "kubernetes service portals"),
  jump("nat", "POSTROUTING", KUBE_POSTROUTING, "kubernetes postrouting rules"),
  jump("filter", "INPUT", KUBE_FIREWALL, undefined),
  jump("filter", "OUTPUT", KUBE_FIREWALL, undefined),
];

/** The jumps of one built-in chain as they end up on a clean host (each was prepended). */
export function builtinChainRules(table: TableName, chain: string): BuiltinJump[] {
  return ENSURED_JUMPS.filter((j) => j.table === table && j.chain === chain).reverse();
}

export const FILTER_BUILTINS = ["INPUT", "FORWARD", "OUTPUT"] as const;
export const NAT_BUILTINS = ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"] as const;
