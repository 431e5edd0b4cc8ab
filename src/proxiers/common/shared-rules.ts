/**
 * The rules every kube-proxy mode writes the same way (pkg/proxy/iptables and pkg/proxy/ipvs
 * proxier.go, spec §4.1): masquerading of marked traffic in nat, and the forwarding accepts in
 * filter. Each mode calls these where its restore input has them; the mark is spelled as the
 * mode prints it (iptables: `0x4000` or padded, IPVS: Go's `%#08x`).
 */
import type { TableBuilder } from "../../netfilter/build/rule-set-builder.js";
import { KUBE_FORWARD, KUBE_MARK_MASQ, KUBE_POSTROUTING } from "./chain-names.js";

/** The masquerade mark, and how the mode spells it in rules. */
export interface MasqueradeMark {
  readonly value: number;
  readonly spelled: string;
}

/**
 * KUBE-POSTROUTING (return unless marked; clear the mark, so that a packet that re-traverses
 * the stack is not masqueraded twice; masquerade) and KUBE-MARK-MASQ (set the mark).
 */
export function writeMasqueradeRules(
  nat: TableBuilder,
  mark: MasqueradeMark,
  randomFully: boolean,
): void {
  const both = `${mark.spelled}/${mark.spelled}`;
  nat.append(KUBE_POSTROUTING).markMatch(mark.value, mark.value, both, true).verdict("RETURN");
  nat.append(KUBE_POSTROUTING).mark("xor-mark", mark.value, mark.spelled);
  nat
    .append(KUBE_POSTROUTING)
    .comment("kubernetes service traffic requiring SNAT")
    .masquerade(randomFully);
  nat.append(KUBE_MARK_MASQ).mark("or-mark", mark.value, mark.spelled);
}

/** KUBE-FORWARD: accept marked traffic, and the replies of established connections. */
export function writeForwardAcceptRules(filter: TableBuilder, mark: MasqueradeMark): void {
  filter
    .append(KUBE_FORWARD)
    .comment("kubernetes forwarding rules")
    .markMatch(mark.value, mark.value, `${mark.spelled}/${mark.spelled}`)
    .verdict("ACCEPT");
  filter
    .append(KUBE_FORWARD)
    .comment("kubernetes forwarding conntrack rule")
    .ctstate(["RELATED", "ESTABLISHED"])
    .verdict("ACCEPT");
}
