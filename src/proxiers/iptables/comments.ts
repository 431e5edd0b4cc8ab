/** How kube-proxy's iptables proxier writes a comment match. */
import { quoteArg } from "../../netfilter/build/rule-builder.js";

/** kube-proxy quotes a comment exactly when it contains a space. */
export function quoteComment(text: string): string {
  return quoteArg(text);
}

/** `-m comment --comment TEXT` */
export function commentArgs(text: string): string {
  return `-m comment --comment ${quoteComment(text)}`;
}
