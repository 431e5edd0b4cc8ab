/** The local-traffic detector in nftables words (spec §1.3): `ip saddr CIDR` or `iifname NAME`. */
import type { LocalDetector } from "../common/local-detector.js";
import { match, meta, payload, value, type Statement } from "../../netfilter/nftables/model.js";
import { assertNever } from "../../util/assert-never.js";
import type { NftFamilyWords } from "./family.js";

/** The match for "from a local pod" (negated: "not from a local pod"); undefined for `none`. */
export function localTrafficMatch(
  d: LocalDetector,
  fam: NftFamilyWords,
  negated: boolean,
): Statement | undefined {
  switch (d.kind) {
    case "none":
      return undefined;
    case "cidr":
      return match(payload(fam.word, "saddr"), value(d.cidr), negated);
    case "interface":
      return match(meta("iifname", true), value(d.name), negated);
    case "interface-prefix":
      return match(meta("iifname", true), value(`${d.prefix}*`), negated);
    default:
      return assertNever(d);
  }
}
