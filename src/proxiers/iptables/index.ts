/**
 * kube-proxy's iptables proxier (shared/spec/kube-proxy-iptables.md), built on ../common.
 * Entry points: `renderIptables` (restore + save + RuleSet per family), `renderIptablesFamilies`
 * (restore text and plans only, no netfilter parsing), `sortRestoreLikeUpstream` (the order
 * upstream tests compare in), and the chain-name helpers.
 */
export * from "./chain-names.js";
export * from "./probability.js";
export * from "./builtin-jumps.js";
export * from "./node-state.js";
export * from "./render-restore.js";
export * from "./render.js";
export * from "./render-iptables.js";
export * from "./upstream-sort.js";
export { quoteComment } from "./comments.js";
